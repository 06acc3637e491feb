// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through bufio, close, read
// them back one byte per call. Prints one JSON line per rep and op.
// Variants:
//   default  bufio.Writer.WriteByte / bufio.Reader.ReadByte with the 4 KiB default buffer, as
//            in 2019, plus the Flush the 2019 program forgot (without it the file lost its tail)
//   bigbuf   the same calls with 1 MiB buffers
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	file := flag.String("file", "", "the file to write and read")
	n := flag.Int64("bytes", 0, "how many bytes")
	reps := flag.Int("reps", 1, "repetitions")
	variant := flag.String("variant", "default", "default or bigbuf")
	wait := flag.Bool("wait", false, "wait for a line on stdin between write and read")
	flag.Parse()
	size := 4096
	switch *variant {
	case "default":
	case "bigbuf":
		size = 1 << 20
	default:
		fmt.Fprintln(os.Stderr, "usage: --variant default|bigbuf")
		os.Exit(2)
	}
	stdin := bufio.NewReader(os.Stdin)
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for rep := 1; rep <= *reps; rep++ {
		// Timed: create, one call per byte, flush, close. bufio's error is sticky, so the
		// Flush reports any failed call: nothing else is in the loop. The harness reads the
		// file back itself to check it.
		t0 := time.Now()
		f, err := os.Create(*file)
		if err != nil {
			fail(err)
		}
		w := bufio.NewWriterSize(f, size)
		for i := int64(0); i < *n; i++ {
			w.WriteByte(byte(i))
		}
		if err := w.Flush(); err != nil {
			fail(err)
		}
		if err := f.Close(); err != nil {
			fail(err)
		}
		fmt.Printf("{\"lang\":\"go\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"write\",\"bytes\":%d,\"ns\":%d,\"checksum\":0}\n",
			*variant, rep, *n, time.Since(t0).Nanoseconds())
		if *wait {
			stdin.ReadString('\n')
		}
		// Timed: open, one call per byte folded into one sum (the harness checks it), close.
		// The error ReadByte returns is how the loop ends: that check is the idiom.
		var sum uint64
		t0 = time.Now()
		f, err = os.Open(*file)
		if err != nil {
			fail(err)
		}
		r := bufio.NewReaderSize(f, size)
		for {
			b, err := r.ReadByte()
			if err != nil {
				if err != io.EOF {
					fail(err)
				}
				break
			}
			sum += uint64(b)
		}
		count, _ := f.Seek(0, io.SeekCurrent)
		f.Close()
		fmt.Printf("{\"lang\":\"go\",\"variant\":\"%s\",\"rep\":%d,\"op\":\"read\",\"bytes\":%d,\"ns\":%d,\"checksum\":%d}\n",
			*variant, rep, count, time.Since(t0).Nanoseconds(), sum)
	}
}
