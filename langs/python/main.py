"""iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Python's buffered
files, close, read them back one byte per call. One JSON line per rep and op. The timed loops
hold the calls and nothing more; the harness checks the file after each write, and each read is
checked after its clock stops.
Variants:
  default  text mode with the iso8859 encoding, write(chr(b)) / read(1), as in 2019
  binary   binary mode, write(bytes((b,))) / read(1): no decoding layer
  2019     2019's program exactly: write(chr(i & 0xff)) for i in range(1, N) (N - 1 bytes),
           N - 1 read(1) calls, the read timed through close and delete
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
    if path is None or variant not in ("default", "binary", "2019"):
        sys.stderr.write("usage: --file PATH --bytes N --reps R --variant default|binary|2019\n")
        sys.exit(2)
    if variant == "2019":
        run2019(path, n, reps, wait)
        return
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


def run2019(fileName, numOfNums, reps, wait):
    # 2019's loops and timing, kept as they were (rvprasad/io-perf, measure.py).
    import os

    def writeUsingFile():
        with open(fileName, 'w', encoding='iso8859') as writer:
            for i in range(1, numOfNums):
                writer.write(chr(i & 0xff))

    def readUsingFile():
        with open(fileName, 'r', encoding='iso8859') as reader:
            for i in range(1, numOfNums):
                reader.read(1)
        os.remove(fileName)

    if os.path.exists(fileName):
        os.remove(fileName)
    for rep in range(1, reps + 1):
        time1 = time.perf_counter_ns()
        writeUsingFile()
        time2 = time.perf_counter_ns()
        report("2019", rep, "write", numOfNums, time2 - time1, 0)
        if wait:
            sys.stdin.readline()
        time2 = time.perf_counter_ns()
        readUsingFile()
        time3 = time.perf_counter_ns()
        report("2019", rep, "read", numOfNums, time3 - time2, 0)


def report(variant, rep, op, n, ns, total):
    print(f'{{"lang":"python","variant":"{variant}","rep":{rep},"op":"{op}","bytes":{n},"ns":{ns},"checksum":{total}}}', flush=True)


main()
