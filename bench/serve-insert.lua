-- wrk script for bench/serve.sh: POST /v1/documents inserting random 64-bit
-- fingerprints (ids made by the service); every answer must be 201, the
-- insert durable.
local headers = { ["Content-Type"] = "application/json" }

init = function(args)
    math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end

request = function()
    local fp = string.format("%08x%08x", math.random(0, 0xffffffff), math.random(0, 0xffffffff))
    return wrk.format("POST", "/v1/documents", headers,
        '{"fingerprint":"' .. fp .. '","mode":"insert"}')
end

response = function(status, headers, body)
    if status ~= 201 then
        error("status " .. status .. ": " .. body)
    end
end
