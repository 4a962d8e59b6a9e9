-- SetDifference with a subtrahend. ARGV[1]: 'all' (the whole set), or
-- 'elements' followed by the elements to remove (maybe none).
-- Returns 2 if the set is missing, else 1. The TTL is kept.
-- Elements per SREM: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state = open('set')
if state == 'missing' then
  return 2
end
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
else
  for from = 2, #ARGV, CHUNK do
    redis.call('SREM', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
end
close('set', state)
return 1
