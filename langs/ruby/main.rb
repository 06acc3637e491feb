# iomark langs: write N bytes (0,1,...,255,0,...) one byte per call through Ruby's buffered IO,
# close, read them back one byte per call. One JSON line per rep and op. The timed loops hold
# the calls and nothing more; the harness checks the file after each write, and each read is
# checked after its clock stops.
# Variants:
#   default  putc / getc on files opened in binary mode, as in 2019
#   getbyte  putc / getbyte: reads an Integer, without a one-character String per call
#   2019     2019's program exactly: (1..N).each { putc(i & 0xff) }, N getc calls, the read
#            timed through close and delete
args = ARGV
value = ->(name, default = nil) { (i = args.index(name)) ? args[i + 1] : default }
path = value.("--file")
n = value.("--bytes", "0").to_i
reps = value.("--reps", "1").to_i
variant = value.("--variant", "default")
wait = args.include?("--wait")
unless path && %w[default getbyte 2019].include?(variant)
  warn "usage: --file PATH --bytes N --reps R --variant default|getbyte|2019"
  exit 2
end
report = lambda do |rep, op, bytes, ns, sum|
  puts %({"lang":"ruby","variant":"#{variant}","rep":#{rep},"op":"#{op}","bytes":#{bytes},"ns":#{ns},"checksum":#{sum}})
  $stdout.flush
end
clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) }
if variant == "2019"
  # 2019's loops and timing, kept as they were (rvprasad/io-perf, measure.rb).
  File.delete(path) if File.exist?(path)
  (1..reps).each do |rep|
    time1 = clock.()
    open(path, 'wb') do |writer|
      (1..n).each { |i| writer.putc(i & 0xff) }
    end
    time2 = clock.()
    report.(rep, "write", n, time2 - time1, 0)
    $stdin.gets if wait
    time2 = clock.()
    open(path, 'rb') do |reader|
      (1..n).each { reader.getc() }
    end
    File.delete(path)
    time3 = clock.()
    report.(rep, "read", n, time3 - time2, 0)
  end
  exit 0
end
(1..reps).each do |rep|
  # Timed: open, one call per byte, close: nothing more per byte than the call and the value
  # it writes. The harness reads the file back itself to check it.
  t0 = clock.()
  File.open(path, "wb") do |out|
    i = 0
    while i < n
      out.putc(i & 255)
      i += 1
    end
  end
  report.(rep, "write", n, clock.() - t0, 0)
  $stdin.gets if wait
  # Timed: open, one call per byte until it returns nil, close. What was read is checked after
  # the clock stops: where the reads ended, and a second, untimed pass.
  count = 0
  t0 = clock.()
  File.open(path, "rb") do |inp|
    if variant == "getbyte"
      while inp.getbyte
      end
    else
      while inp.getc
      end
    end
    count = inp.pos
  end
  ns = clock.() - t0
  report.(rep, "read", count, ns, File.binread(path).sum(64))
end
