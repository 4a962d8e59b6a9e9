-- script: item_prelude collection_prelude leaderboard_prelude
-- UpsertElements. ARGV[1]: the most ids a board may hold; ARGV[2..]:
-- score, member pairs, as ZADD takes them (an id given twice: the last
-- score wins, as ZADD does). Returns {length after}, or {'too_large', the
-- length it would have} (and nothing changed).
local FIRST = 2
-- Arguments per ZMSCORE or ZADD: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state = open('leaderboard')
local len = 0
if state == 'ok' then
  len = redis.call('ZCARD', KEYS[3])
end
-- The members the board lacks, each counted once.
local counted = {}
for from = FIRST + 1, #ARGV, CHUNK do
  local members = {}
  for i = from, math.min(from + CHUNK - 1, #ARGV), 2 do
    members[#members + 1] = ARGV[i]
  end
  local held = {}
  if state == 'ok' then
    held = redis.call('ZMSCORE', KEYS[3], unpack(members))
  end
  for j, member in ipairs(members) do
    if not held[j] and not counted[member] then
      counted[member] = true
      len = len + 1
    end
  end
end
if len > tonumber(ARGV[1]) then
  return {'too_large', len}
end

for from = FIRST, #ARGV, CHUNK do
  redis.call('ZADD', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
end
settle(state)
return {len}
