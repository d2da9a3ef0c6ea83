-- wrk script for bench/serve.sh: POST /v1/documents with the query bodies
-- of the file named by the BODIES environment variable, one a line, in turn.
local bodies = {}
for line in io.lines(os.getenv("BODIES")) do
    bodies[#bodies + 1] = line
end
local at = 0
local headers = { ["Content-Type"] = "application/json" }

request = function()
    at = at % #bodies + 1
    return wrk.format("POST", "/v1/documents", headers, bodies[at])
end

response = function(status, headers, body)
    if status ~= 200 then
        error("status " .. status .. ": " .. body)
    end
end
