-- script: item_prelude collection_prelude
-- SetDifference with a subtrahend. ARGV[1]: 'all' (the whole set), or
-- 'elements' followed by the elements to remove (maybe none).
-- Returns 2 if the set is missing, else 1. The TTL is kept, and the size
-- in the set's marker (see item_prelude.lua) when it has one.
-- Elements per SREM: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('set')
if state == 'missing' then
  return 2
end
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
elseif size then
  -- One at a time, to subtract what each removal really removed.
  for i = 2, #ARGV do
    if redis.call('SREM', KEYS[3], ARGV[i]) == 1 then
      size = size - element_size(ARGV[i])
    end
  end
else
  for from = 2, #ARGV, CHUNK do
    redis.call('SREM', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
end
close('set', state, nil, nil, size)
return 1
