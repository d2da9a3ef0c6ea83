-- wrk script for bench/serve.sh: POST /v1/documents with the query bodies
-- of the file named by the BODIES environment variable, one a line, in turn.
--
-- Light on the load generator, which shares the server's cores: every
-- request is formatted before the run, and no Lua runs on the answers.
-- Their statuses are checked by the caller: wrk counts every answer
-- outside 2xx ("Non-2xx"), and bench_wrk_read (bench/driver.sh) fails the
-- run on any; the load example's checked queries check what they find.
local requests = {}
local headers = { ["Content-Type"] = "application/json" }
for line in io.lines(os.getenv("BODIES")) do
    requests[#requests + 1] = wrk.format("POST", "/v1/documents", headers, line)
end

local at = 0
request = function()
    at = at % #requests + 1
    return requests[at]
end
