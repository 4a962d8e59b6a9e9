-- script: item_prelude collection_prelude
-- DictionaryDelete. ARGV[1]: 'all', or 'some' followed by the fields.
-- Returns 2 if the dictionary is missing, else {length after}.
-- Fields per HDEL: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('dictionary')
if state == 'missing' then
  return 2
end
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
else
  if size then
    -- Each field once: a field named twice is removed once.
    local seen = {}
    for i = 2, #ARGV do
      local field = ARGV[i]
      if not seen[field] and redis.call('HEXISTS', KEYS[3], field) == 1 then
        size = size - entry_size(#field, redis.call('HSTRLEN', KEYS[3], field))
      end
      seen[field] = true
    end
  end
  for from = 2, #ARGV, CHUNK do
    redis.call('HDEL', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
end
local len = redis.call('HLEN', KEYS[3])
close('dictionary', state, nil, nil, size)
return {len}
