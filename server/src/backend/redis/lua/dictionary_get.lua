-- script: read_prelude item_prelude collection_prelude
-- DictionaryGet. ARGV: the fields (at least one).
-- Returns 2 if the dictionary is missing, else the value of each field in
-- order (nil for a field it lacks).
-- Fields per HMGET: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

if open('dictionary') == 'missing' then
  return 2
end
local values = {}
for from = 1, #ARGV, CHUNK do
  local to = math.min(from + CHUNK - 1, #ARGV)
  local chunk = redis.call('HMGET', KEYS[3], unpack(ARGV, from, to))
  for i = 1, to - from + 1 do
    values[from + i - 1] = chunk[i]
  end
end
return within_cap(values)
