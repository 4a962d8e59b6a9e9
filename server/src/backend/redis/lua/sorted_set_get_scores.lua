-- script: item_prelude collection_prelude
-- SortedSetGetScore. ARGV: the values.
-- Returns 2 if the set is missing, else each value's score, or nil for a
-- value the set does not hold, in order.
local CHUNK = 1000
if open('sorted_set') == 'missing' then
  return 2
end
local scores = {}
for from = 1, #ARGV, CHUNK do
  local found = redis.call('ZMSCORE', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  for _, score in ipairs(found) do
    scores[#scores + 1] = score
  end
end
return scores
