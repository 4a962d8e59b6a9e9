-- script: item_prelude collection_prelude
-- SortedSetRemove. ARGV[1]: 'all' or 'some'; ARGV[2..]: the values.
-- Returns 2 if the set is missing, else {length after}.
local CHUNK = 1000
local state = open('sorted_set')
if state == 'missing' then
  return 2
end
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
else
  for from = 2, #ARGV, CHUNK do
    redis.call('ZREM', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
end
local len = redis.call('ZCARD', KEYS[3])
close('sorted_set', state)
return {len}
