-- script: item_prelude collection_prelude
-- SortedSetPut. ARGV[1]: the most elements a sorted set may hold;
-- ARGV[2]: TTL in milliseconds; ARGV[3]: '1' to refresh the TTL of an
-- existing set; ARGV[4..]: value, score pairs (scores as exact decimal
-- text; a value given twice: the last score wins, as ZADD does).
-- Returns {length after}, or {'too_large', the length it would have}
-- (and nothing changed). The size in the set's marker (see
-- item_prelude.lua) is kept, when it has one: that of the values added.
local FIRST = 4
-- Pairs per ZADD: `unpack` is bounded by Lua's C stack.
local CHUNK = 500

local state, size = open('sorted_set')
local seen = {}
local added = 0
for i = FIRST, #ARGV, 2 do
  local value = ARGV[i]
  if not seen[value] then
    seen[value] = true
    if state == 'missing' or not redis.call('ZSCORE', KEYS[3], value) then
      added = added + 1
      if size then
        size = size + element_size(value)
      end
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
close('sorted_set', state, ARGV[2], ARGV[3], size)
return {len}
