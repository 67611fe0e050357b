-- Registrations in several hot classes at once: N students, each bound to one class (student k,
-- counted from 0, to class k mod the number of classes), register for and drop their own class
-- at random (50/50), through the SDSU protocol's GET form, as bench/lua/registration.lua does
-- for one class. The classes' rows are separate turns: on PostgreSQL, units of different
-- classes do not wait for each other.
-- Arguments: N students, first red id, password, class ids separated by commas.
-- Prints the same `contention:` line as registration.lua, with the number of classes.
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  added, full, dropped, notin, other, failed, busy = 0, 0, 0, 0, 0, 0, 0
  students = tonumber(args[1]) or 200
  first = tonumber(args[2]) or 600000001
  password = args[3] or "benchpass1"
  classes = {}
  for class in string.gmatch(args[4] or "7030,7038,7040,7048", "[^,]+") do table.insert(classes, class) end
  nclasses = #classes
  math.randomseed(id * 7919)
end

function request()
  local k = math.random(0, students - 1)
  local class = classes[k % #classes + 1]
  local op = (math.random() < 0.5) and "registerclass" or "unregisterclass"
  return wrk.format("GET", "/registration/" .. op .. "?redid=" .. (first + k) .. "&password=" .. password .. "&courseid=" .. class)
end

function response(status, headers, body)
  if status ~= 200 then failed = failed + 1 end
  if status == 503 then busy = busy + 1 end
  if body:find("Course added", 1, true) then added = added + 1
  elseif body:find("Course dropped", 1, true) then dropped = dropped + 1
  elseif body:find("full", 1, true) or body:find("already in course", 1, true) then full = full + 1
  elseif body:find("not in course", 1, true) then notin = notin + 1
  else other = other + 1 end
end

function done(summary, latency, requests)
  local a, f, d, n, o, e, b = 0, 0, 0, 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    a = a + thread:get("added")
    f = f + thread:get("full")
    d = d + thread:get("dropped")
    n = n + thread:get("notin")
    o = o + thread:get("other")
    e = e + thread:get("failed")
    b = b + thread:get("busy")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "contention: requests_per_s=%.0f registrations_per_s=%.0f drops_per_s=%.0f refused_full_or_enrolled=%d not_enrolled=%d other=%d not_200=%d requests=%d p50_ms=%.2f p99_ms=%.2f status_503=%d classes=%d\n",
    summary.requests / seconds, a / seconds, d / seconds, f, n, o, e, summary.requests,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, b, threads[1]:get("nclasses")))
end
