// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through java.io's buffered
// streams from Scala, close, read them back one byte per call. One JSON line per rep and op.
// The timed loops hold the calls and nothing more (the read folds each byte into one sum); the
// harness checks the file after each write and the sum after each read.
// Variants:
//   default  BufferedOutputStream.write(int) / BufferedInputStream.read() (8 KiB), as in 2019
//   bigbuf   the same calls with 1 MiB buffers
//   biased   default, run with -XX:+UseBiasedLocking (the JVM's locks as in 2019's JDK 8)
//   2019     2019's program exactly: `1 to N foreach` write(x & 0xff) / read with a counter,
//            the read timed through close and delete
import java.io._

object Main {
  // 2019's loops and timing, kept as they were (rvprasad/io-perf, measure.scala).
  def run2019(fileName: String, numOfNums: Int, reps: Int, wait: Boolean,
              print: (Int, String, Long, Long, Long) => Unit): Unit = {
    import java.nio.file.{Files, Paths}
    def writeUsingFile(): Unit = {
      val writer = new BufferedOutputStream(new FileOutputStream(fileName))
      try {
        1 to numOfNums foreach { x => writer.write(x & 0xff) }
      } finally
        writer.close
    }
    def readUsingFile(): Unit = {
      var t = 0
      val reader = new BufferedInputStream(new FileInputStream(fileName))
      try {
        1 to numOfNums foreach { _ => reader.read ; t += 1 }
      } finally
        reader.close
      assert(t >= numOfNums)
      Files.delete(Paths.get(fileName))
    }
    val stdin = new BufferedReader(new InputStreamReader(System.in))
    Files.deleteIfExists(Paths.get(fileName))
    for (rep <- 1 to reps) {
      val time1 = System.nanoTime()
      writeUsingFile()
      val time2 = System.nanoTime()
      print(rep, "write", numOfNums, time2 - time1, 0L)
      if (wait) stdin.readLine()
      val time3 = System.nanoTime()
      readUsingFile()
      val time4 = System.nanoTime()
      print(rep, "read", numOfNums, time4 - time3, 0L)
    }
  }

  def main(args: Array[String]): Unit = {
    def value(name: String): Option[String] = {
      val i = args.indexOf(name)
      if (i >= 0 && i + 1 < args.length) Some(args(i + 1)) else None
    }
    val file = value("--file").getOrElse { System.err.println("usage: --file PATH"); sys.exit(2) }
    val n = value("--bytes").map(_.toLong).getOrElse(0L)
    val reps = value("--reps").map(_.toInt).getOrElse(1)
    val variant = value("--variant").getOrElse("default")
    val wait = args.contains("--wait")
    val size = variant match {
      case "default" | "biased" => 8192
      case "bigbuf" => 1 << 20
      case "2019" => 8192
      case _ => System.err.println("usage: --variant default|bigbuf|biased|2019"); sys.exit(2)
    }
    def print(rep: Int, op: String, bytes: Long, ns: Long, sum: Long): Unit = {
      println(s"""{"lang":"scala","variant":"$variant","rep":$rep,"op":"$op","bytes":$bytes,"ns":$ns,"checksum":$sum}""")
      scala.Console.flush()
    }
    if (variant == "2019") {
      run2019(file, n.toInt, reps, wait, print)
      return
    }
    val stdin = new BufferedReader(new InputStreamReader(System.in))
    for (rep <- 1 to reps) {
      // Timed: open, one call per byte, close. Nothing else in the loop: the harness reads the
      // file back itself to check it.
      var t0 = System.nanoTime()
      val out = new BufferedOutputStream(new FileOutputStream(file), size)
      var i = 0L
      while (i < n) {
        out.write((i & 255).toInt)
        i += 1
      }
      out.close()
      print(rep, "write", n, System.nanoTime() - t0, 0L)
      if (wait) stdin.readLine()
      // Timed: open, one call per byte folded into one sum (the harness checks it), close.
      var sum = 0L
      t0 = System.nanoTime()
      val raw = new FileInputStream(file)
      val in = new BufferedInputStream(raw, size)
      var c = in.read()
      while (c != -1) {
        sum += c
        c = in.read()
      }
      val count = raw.getChannel.position()
      in.close()
      print(rep, "read", count, System.nanoTime() - t0, sum)
    }
  }
}
