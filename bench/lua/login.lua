-- POST /v1/auth/token with the bench account's credentials; counts answers by status.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"username":"bench-user","password":"bench passphrase 1"}'

local counts = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  created, unavailable, throttled, other = 0, 0, 0, 0
end

function response(status, headers, body)
  if status == 201 then created = created + 1
  elseif status == 503 then unavailable = unavailable + 1
  elseif status == 429 then throttled = throttled + 1
  else other = other + 1 end
end

function done(summary, latency, requests)
  local c, u, t, o = 0, 0, 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    u = u + thread:get("unavailable")
    t = t + thread:get("throttled")
    o = o + thread:get("other")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("login_201=%d login_503=%d login_429=%d login_other=%d logins_per_s=%.1f\n", c, u, t, o, c / seconds))
end
