// iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through java.io's buffered
// streams, close, read them back one byte per call. One JSON line per rep and op. The timed
// loops hold the calls and nothing more (the read folds each byte into one sum); the harness
// checks the file after each write and the sum after each read.
// Variants:
//   default  BufferedOutputStream.write(int) / BufferedInputStream.read() (8 KiB buffers)
//   bigbuf   the same calls with 1 MiB buffers
//   biased   default, run with -XX:+UseBiasedLocking: write(int) and read() are synchronized,
//            and JDK 15 stopped making an uncontended lock nearly free
import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        String file = null, variant = "default";
        long n = 0;
        int reps = 1;
        boolean wait = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--file": file = args[++i]; break;
                case "--bytes": n = Long.parseLong(args[++i]); break;
                case "--reps": reps = Integer.parseInt(args[++i]); break;
                case "--variant": variant = args[++i]; break;
                case "--wait": wait = true; break;
                default: break;
            }
        }
        int size;
        if (variant.equals("default") || variant.equals("biased")) size = 8192;
        else if (variant.equals("bigbuf")) size = 1 << 20;
        else { System.err.println("usage: --variant default|bigbuf|biased"); System.exit(2); return; }
        if (file == null) { System.err.println("usage: --file PATH --bytes N --reps R"); System.exit(2); }
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
        for (int rep = 1; rep <= reps; rep++) {
            // Timed: open, one call per byte, close. Nothing else in the loop: the harness reads
            // the file back itself to check it.
            long t0 = System.nanoTime();
            try (OutputStream out = new BufferedOutputStream(new FileOutputStream(file), size)) {
                for (long i = 0; i < n; i++) out.write((int) (i & 255));
            }
            print(variant, rep, "write", n, System.nanoTime() - t0, 0);
            if (wait) stdin.readLine();
            // Timed: open, one call per byte folded into one sum (the harness checks it), close.
            long sum = 0, count;
            t0 = System.nanoTime();
            FileInputStream raw = new FileInputStream(file);
            try (InputStream in = new BufferedInputStream(raw, size)) {
                int c;
                while ((c = in.read()) != -1) sum += c;
                count = raw.getChannel().position();
            }
            print(variant, rep, "read", count, System.nanoTime() - t0, sum);
        }
    }

    static void print(String variant, int rep, String op, long bytes, long ns, long sum) {
        System.out.println("{\"lang\":\"java\",\"variant\":\"" + variant + "\",\"rep\":" + rep
            + ",\"op\":\"" + op + "\",\"bytes\":" + bytes + ",\"ns\":" + ns + ",\"checksum\":" + sum + "}");
        System.out.flush();
    }
}
