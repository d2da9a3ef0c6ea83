-- wrk script for bench/serve.sh: POST /v1/documents inserting random 64-bit
-- fingerprints (ids made by the service), each insert durable.
--
-- Light on the load generator, which shares the server's cores: every
-- request is formatted before the run (PER_THREAD of them a thread, 300,000
-- by default; past them a thread sends its fingerprints again, as new
-- documents), and no Lua runs on the answers. Their statuses are checked
-- by the caller: wrk counts every answer outside 2xx ("Non-2xx"), and
-- bench_wrk_read (bench/driver.sh) fails the run on any.
local requests = {}
local headers = { ["Content-Type"] = "application/json" }

init = function(args)
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
    for i = 1, tonumber(os.getenv("PER_THREAD") or "300000") do
        local fp = string.format("%08x%08x", math.random(0, 0xffffffff), math.random(0, 0xffffffff))
        requests[i] = wrk.format("POST", "/v1/documents", headers,
            '{"fingerprint":"' .. fp .. '","mode":"insert"}')
    end
end

local at = 0
request = function()
    at = at % #requests + 1
    return requests[at]
end
