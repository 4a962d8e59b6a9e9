-- script: item_prelude collection_prelude
-- DictionarySet. ARGV[1]: the most fields a dictionary may hold; ARGV[2]:
-- TTL in milliseconds; ARGV[3]: '1' to refresh the TTL of an existing
-- dictionary; ARGV[4..]: field, value, field, value, ... (at least one pair;
-- a field given twice keeps its last value).
-- Returns {length after}, or {'too_large', the length it would have} (and
-- nothing changed).
local FIRST_PAIR = 4
-- Arguments per HSET: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('dictionary')
local len = redis.call('HLEN', KEYS[3])
-- Each field's last value, and the size its entry replaces (the marker's
-- count).
local last = {}
for i = FIRST_PAIR, #ARGV, 2 do
  local field = ARGV[i]
  if last[field] == nil then
    if redis.call('HEXISTS', KEYS[3], field) == 0 then
      len = len + 1
    elseif size then
      size = size - entry_size(#field, redis.call('HSTRLEN', KEYS[3], field))
    end
  end
  last[field] = ARGV[i + 1]
end
if size then
  for field, value in pairs(last) do
    size = size + entry_size(#field, #value)
  end
end
if len > tonumber(ARGV[1]) then
  return {'too_large', len}
end
for from = FIRST_PAIR, #ARGV, CHUNK do
  redis.call('HSET', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
end
close('dictionary', state, ARGV[2], ARGV[3], size)
return {len}
