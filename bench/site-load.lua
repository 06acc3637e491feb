-- wrk's script for bench/site-load: each connection asks for the paths in the file named by
-- IOMARK_PATHS (one a line, made by `site_load paths`), each thread from its own place in it,
-- and the end prints one JSON line of figures for the bench to read.

local paths = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("start", counter * 7919)
end

function init(args)
  local file = assert(io.open(os.getenv("IOMARK_PATHS"), "r"))
  for line in file:lines() do
    paths[#paths + 1] = line
  end
  file:close()
  at = start or 0
end

function request()
  at = at + 1
  return wrk.format("GET", paths[(at % #paths) + 1])
end

function done(summary, latency, requests)
  local e = summary.errors
  local ms = function(q) return latency:percentile(q) / 1000 end
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "p50_ms": %.2f, "p99_ms": %.2f, "p99_5_ms": %.2f, ' ..
    '"max_ms": %.2f, "errors": %d}\n',
    summary.requests, summary.duration / 1e6, ms(50), ms(99), ms(99.5), latency.max / 1000,
    e.connect + e.read + e.write + e.status + e.timeout))
end
