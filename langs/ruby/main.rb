# iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Ruby's buffered IO,
# close, read them back one byte per call, check them. One JSON line per rep and op.
# Variants:
#   default  putc / getc on files opened in binary mode, as in 2019
#   getbyte  putc / getbyte: reads an Integer, without a one-character String per call
args = ARGV
value = ->(name, default = nil) { (i = args.index(name)) ? args[i + 1] : default }
path = value.("--file")
n = value.("--bytes", "0").to_i
reps = value.("--reps", "1").to_i
variant = value.("--variant", "default")
wait = args.include?("--wait")
unless path && %w[default getbyte].include?(variant)
  warn "usage: --file PATH --bytes N --reps R --variant default|getbyte"
  exit 2
end
report = lambda do |rep, op, bytes, ns, sum|
  puts %({"lang":"ruby","variant":"#{variant}","rep":#{rep},"op":"#{op}","bytes":#{bytes},"ns":#{ns},"checksum":#{sum}})
  $stdout.flush
end
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) }
(1..reps).each do |rep|
  sum = 0
  t0 = clock.()
  File.open(path, "wb") do |out|
    i = 0
    while i < n
      b = i & 255
      out.putc(b)
      sum += b
      i += 1
    end
  end
  report.(rep, "write", n, clock.() - t0, sum)
  $stdin.gets if wait
  sum = 0
  count = 0
  t0 = clock.()
  File.open(path, "rb") do |inp|
    if variant == "getbyte"
      while (b = inp.getbyte)
        if b != (count & 255)
          warn "byte #{count} is #{b}, expected #{count & 255}"
          exit 3
        end
        sum += b
        count += 1
      end
    else
      while (c = inp.getc)
        b = c.ord
        if b != (count & 255)
          warn "byte #{count} is #{b}, expected #{count & 255}"
          exit 3
        end
        sum += b
        count += 1
      end
    end
  end
  report.(rep, "read", count, clock.() - t0, sum)
end
