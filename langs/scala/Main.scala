// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through java.io's buffered
// streams from Scala, close, read them back one byte per call. One JSON line per rep and op.
// The timed loops hold the calls and nothing more (the read folds each byte into one sum); the
// harness checks the file after each write and the sum after each read.
// Variants:
//   default  BufferedOutputStream.write(int) / BufferedInputStream.read() (8 KiB), as in 2019
//   bigbuf   the same calls with 1 MiB buffers
//   biased   default, run with -XX:+UseBiasedLocking (the JVM's locks as in 2019's JDK 8)
import java.io._

object Main {
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
      case _ => System.err.println("usage: --variant default|bigbuf|biased"); sys.exit(2)
    }
    val stdin = new BufferedReader(new InputStreamReader(System.in))
    def print(rep: Int, op: String, bytes: Long, ns: Long, sum: Long): Unit = {
      println(s"""{"lang":"scala","variant":"$variant","rep":$rep,"op":"$op","bytes":$bytes,"ns":$ns,"checksum":$sum}""")
      scala.Console.flush()
    }
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
