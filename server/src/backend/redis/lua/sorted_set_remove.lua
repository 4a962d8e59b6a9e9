-- script: item_prelude collection_prelude
-- SortedSetRemove. ARGV[1]: 'all' or 'some'; ARGV[2..]: the values.
-- Returns 2 if the set is missing, else {length after}. The size in the
-- set's marker (see item_prelude.lua) is kept, when it has one.
local CHUNK = 1000
local state, size = open('sorted_set')
if state == 'missing' then
  return 2
end
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
elseif size then
  -- One at a time, to take off what each removal really removed.
  for i = 2, #ARGV do
    if redis.call('ZREM', KEYS[3], ARGV[i]) == 1 then
      size = size - element_size(ARGV[i])
    end
  end
else
  for from = 2, #ARGV, CHUNK do
    redis.call('ZREM', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
end
local len = redis.call('ZCARD', KEYS[3])
close('sorted_set', state, nil, nil, size)
return {len}
