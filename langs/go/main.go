// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through bufio, close, read
// them back one byte per call. Prints one JSON line per rep and op.
// Variants:
//   default  bufio.Writer.WriteByte / bufio.Reader.ReadByte with the 4 KiB default buffer, as
//            in 2019, plus the Flush the 2019 program forgot (without it the file lost its tail)
//   bigbuf   the same calls with 1 MiB buffers
//   2019     2019's program exactly: WriteByte(byte(i & 0xff)) for i = 1..N with no Flush
//            (the file loses its last buffer), N ReadByte calls, the read timed through close
//            and delete
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
	case "2019":
		run2019(*file, int(*n), *reps, *wait)
		return
	default:
		fmt.Fprintln(os.Stderr, "usage: --variant default|bigbuf|2019")
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

// 2019's loops and timing, kept as they were (rvprasad/io-perf, measure.go).
func writeUsingFile(fileName string, numOfNums int) {
	file, _ := os.OpenFile(fileName, os.O_CREATE|os.O_WRONLY, 0600)
	defer file.Close()
	writer := bufio.NewWriter(file)
	for i := 1; i <= numOfNums; i++ {
		writer.WriteByte(byte(i & 0xff))
	}
}

func readUsingFile(fileName string, numOfNums int) {
	file, _ := os.Open(fileName)
	defer file.Close()
	reader := bufio.NewReader(file)
	for i := 1; i <= numOfNums; i++ {
		reader.ReadByte()
	}
	os.Remove(fileName)
}

func run2019(fileName string, numOfNums int, reps int, wait bool) {
	stdin := bufio.NewReader(os.Stdin)
	os.Remove(fileName)
	for rep := 1; rep <= reps; rep++ {
		time1 := time.Now()
		writeUsingFile(fileName, numOfNums)
		time2 := time.Now()
		fmt.Printf("{\"lang\":\"go\",\"variant\":\"2019\",\"rep\":%d,\"op\":\"write\",\"bytes\":%d,\"ns\":%d,\"checksum\":0}\n",
			rep, numOfNums, time2.Sub(time1).Nanoseconds())
		if wait {
			stdin.ReadString('\n')
		}
		time2 = time.Now()
		readUsingFile(fileName, numOfNums)
		time3 := time.Now()
		fmt.Printf("{\"lang\":\"go\",\"variant\":\"2019\",\"rep\":%d,\"op\":\"read\",\"bytes\":%d,\"ns\":%d,\"checksum\":0}\n",
			rep, numOfNums, time3.Sub(time2).Nanoseconds())
	}
}
