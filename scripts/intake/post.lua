-- wrk script for scripts/bench_intake.py: every request a new submission
-- (its own Idempotency-Key and visitor fields, the body the floor and the
-- Python peer use), and every answer counted by status.
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  counter = 0
  statuses = {}
  prefix = (args[1] or "run") .. "-" .. id
end

function request()
  counter = counter + 1
  local n = prefix .. "-" .. counter
  local body = '{"email":"v' .. n .. '@example.jp","name":"山田 花子","company":"株式会社サンプル",'
    .. '"message":"お世話になっております。先日お問い合わせした件について、見積もりを改めてお願いできますでしょうか。'
    .. '納期は来月末を希望しています。' .. n .. '"}'
  return wrk.format("POST", wrk.path, {
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = '"' .. n .. '"',
  }, body)
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, t in ipairs(threads) do
    for status, count in pairs(t:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(total) do
    table.insert(parts, '"' .. status .. '":' .. count)
  end
  io.write('STATUSES {' .. table.concat(parts, ",") .. '}\n')
  io.write(string.format('LATENCY {"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    latency:percentile(50), latency:percentile(99), latency.max))
end
