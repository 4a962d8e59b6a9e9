-- UpsertElements. ARGV[1]: the most ids a board may hold; ARGV[2..]:
-- member, score pairs (an id given twice: the last score wins, as ZADD
-- does). Returns {length after}, or {'too_large', the length it would
-- have} (and nothing changed).
local FIRST = 2
-- Pairs per ZADD: `unpack` is bounded by Lua's C stack.
local CHUNK = 500

local state = open('leaderboard')
local seen = {}
local added = 0
for i = FIRST, #ARGV, 2 do
  local member = ARGV[i]
  if not seen[member] then
    seen[member] = true
    if state == 'missing' or not redis.call('ZSCORE', KEYS[3], member) then
      added = added + 1
    end
  end
end
local len = added
if state == 'ok' then
  len = len + redis.call('ZCARD', KEYS[3])
end
if len > tonumber(ARGV[1]) then
  return {'too_large', len}
end

for from = FIRST, #ARGV, 2 * CHUNK do
  local args = {}
  for i = from, math.min(from + 2 * CHUNK - 1, #ARGV), 2 do
    args[#args + 1] = ARGV[i + 1]
    args[#args + 1] = ARGV[i]
  end
  redis.call('ZADD', KEYS[3], unpack(args))
end
settle(state)
return {len}
