"""iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Python's buffered
files, close, read them back one byte per call, check them. One JSON line per rep and op.
Variants:
  default  text mode with the iso8859 encoding, write(chr(b)) / read(1), as in 2019
  binary   binary mode, write(bytes((b,))) / read(1): no decoding layer
"""
import sys
import time


def main():
    args = sys.argv[1:]

    def value(name, default=None):
        return args[args.index(name) + 1] if name in args else default

    path = value("--file")
    n = int(value("--bytes", "0"))
    reps = int(value("--reps", "1"))
    variant = value("--variant", "default")
    wait = "--wait" in args
    if path is None or variant not in ("default", "binary"):
        sys.stderr.write("usage: --file PATH --bytes N --reps R --variant default|binary\n")
        sys.exit(2)
    text = variant == "default"
    for rep in range(1, reps + 1):
        total = 0
        t0 = time.perf_counter_ns()
        if text:
            with open(path, "w", encoding="iso8859") as out:
                for i in range(n):
                    b = i & 255
                    out.write(chr(b))
                    total += b
        else:
            with open(path, "wb") as out:
                for i in range(n):
                    b = i & 255
                    out.write(bytes((b,)))
                    total += b
        report(variant, rep, "write", n, time.perf_counter_ns() - t0, total)
        if wait:
            sys.stdin.readline()
        total = 0
        count = 0
        t0 = time.perf_counter_ns()
        with (open(path, "r", encoding="iso8859", newline="") if text else open(path, "rb")) as inp:
            while True:
                c = inp.read(1)
                if not c:
                    break
                b = ord(c) if text else c[0]
                if b != count & 255:
                    sys.stderr.write(f"byte {count} is {b}, expected {count & 255}\n")
                    sys.exit(3)
                total += b
                count += 1
        report(variant, rep, "read", count, time.perf_counter_ns() - t0, total)


def report(variant, rep, op, n, ns, total):
    print(f'{{"lang":"python","variant":"{variant}","rep":{rep},"op":"{op}","bytes":{n},"ns":{ns},"checksum":{total}}}', flush=True)


main()
