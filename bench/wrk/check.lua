-- wrk script of bench/wrk.py: every request is the same MCP `tools/call` (its body and headers
-- from the environment), and every response is checked against the reference answer the driver
-- read and verified first: status 200 and the body byte for byte (the id, the sum, every
-- field). A connection error or a wrong answer is counted; `done` prints the counts on one line
-- the driver reads (`checked=N wrong=M`).
--
-- Environment: WRK_BODY (the request body), WRK_HEADERS (`name: value` lines separated by
-- newlines), WRK_EXPECT (the reference answer's body).

local body = os.getenv("WRK_BODY") or error("WRK_BODY is not set")
local expect = os.getenv("WRK_EXPECT") or error("WRK_EXPECT is not set")
local header_lines = os.getenv("WRK_HEADERS") or ""

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = "POST"
  wrk.body = body
  for line in header_lines:gmatch("[^\n]+") do
    local name, value = line:match("^%s*([^:]+):%s*(.-)%s*$")
    if name then
      wrk.headers[name] = value
    end
  end
  -- One request, formatted once: every call sends the same bytes.
  formatted = wrk.format()
  checked = 0
  wrong = 0
  first_wrong = ""
end

function request()
  return formatted
end

function response(status, headers, got)
  checked = checked + 1
  if status ~= 200 or got ~= expect then
    if wrong == 0 then
      first_wrong = status .. " " .. got
    end
    wrong = wrong + 1
  end
end

function done(summary, latency, requests)
  local total, bad, sample = 0, 0, ""
  for _, thread in ipairs(threads) do
    total = total + thread:get("checked")
    bad = bad + thread:get("wrong")
    local first = thread:get("first_wrong")
    if sample == "" and first ~= nil then
      sample = first
    end
  end
  local e = summary.errors
  io.write(string.format("checked=%d wrong=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
    total, bad, e.connect, e.read, e.write, e.status, e.timeout))
  if bad > 0 then
    io.write("first wrong answer: " .. sample .. "\n")
  end
end
