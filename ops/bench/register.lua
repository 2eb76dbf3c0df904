-- wrk script: PUT a registration for a distinct token on every request.
-- Each wrk thread numbers its requests; the thread id keeps tokens distinct across threads.
local counter = 0
local thread_id = 0
local threads = {}

function setup(thread)
  thread:set("thread_id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_id = tonumber(wrk.thread:get("thread_id")) or 0
end

local body = '{"environment":"production","languages":["en-GB","fr"],' ..
  '"authorization":{"status":"authorized"},"timeZone":"Europe/London","userID":"bench",' ..
  '"attributes":{"plan":"free"}}'

function request()
  counter = counter + 1
  local token = string.format("%08x%024x", thread_id, counter)
  return wrk.format("PUT", "/v1/apps/" .. os.getenv("HERALD_BENCH_BUNDLE") .. "/devices/" .. token,
    { ["Authorization"] = "Bearer " .. os.getenv("HERALD_BENCH_KEY"), ["Content-Type"] = "application/json" }, body)
end

function done(summary, latency, requests)
  io.write(string.format("requests %d, errors: status %d, connect %d, read %d, write %d, timeout %d\n",
    summary.requests, summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout))
  io.write(string.format("p50 %.2f ms, p99 %.2f ms\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
