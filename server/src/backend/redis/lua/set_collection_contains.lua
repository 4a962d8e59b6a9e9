-- script: item_prelude collection_prelude
-- SetContains. ARGV: the elements asked about (maybe none).
-- Returns 2 if the set is missing, else 1 or 0 for each, in order.
-- Elements per SMISMEMBER: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

if open('set') == 'missing' then
  return 2
end
local answers = {}
for from = 1, #ARGV, CHUNK do
  local part = redis.call('SMISMEMBER', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  for _, member in ipairs(part) do
    answers[#answers + 1] = member
  end
end
return answers
