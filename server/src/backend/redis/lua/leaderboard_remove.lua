-- script: item_prelude collection_prelude leaderboard_prelude
-- RemoveElements. ARGV: the members to remove (those absent are ignored).
-- Returns 1.
local CHUNK = 500

local state = open('leaderboard')
if state == 'missing' then
  return 1
end
for from = 1, #ARGV, CHUNK do
  redis.call('ZREM', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
end
settle(state)
return 1
