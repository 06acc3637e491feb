"""iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Python's buffered
files, close, read them back one byte per call. One JSON line per rep and op. The timed loops
hold the calls and nothing more; the harness checks the file after each write, and each read is
checked after its clock stops.
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
        # Timed: open, one call per byte, close: nothing more per byte than the call and the
        # value it writes. The harness reads the file back itself to check it.
        t0 = time.perf_counter_ns()
        if text:
            with open(path, "w", encoding="iso8859") as out:
                for i in range(n):
                    out.write(chr(i & 255))
        else:
            with open(path, "wb") as out:
                for i in range(n):
                    out.write(bytes((i & 255,)))
        report(variant, rep, "write", n, time.perf_counter_ns() - t0, 0)
        if wait:
            sys.stdin.readline()
        # Timed: open, one read(1) per byte until it returns nothing, close. What was read is
        # checked after the clock stops: where the reads ended, and a second, untimed pass.
        t0 = time.perf_counter_ns()
        with (open(path, "r", encoding="iso8859", newline="") if text else open(path, "rb")) as inp:
            while inp.read(1):
                pass
            count = inp.tell() if not text else None
        ns = time.perf_counter_ns() - t0
        with open(path, "rb") as again:
            data = again.read()
        if count is None:
            count = len(data)
        report(variant, rep, "read", count, ns, sum(data))


def report(variant, rep, op, n, ns, total):
    print(f'{{"lang":"python","variant":"{variant}","rep":{rep},"op":"{op}","bytes":{n},"ns":{ns},"checksum":{total}}}', flush=True)


main()
