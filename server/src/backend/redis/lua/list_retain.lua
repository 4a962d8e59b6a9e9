-- script: item_prelude collection_prelude list_slice
-- ListRetain. ARGV[1], ARGV[2]: the slice to keep (see list_slice.lua);
-- ARGV[3]: TTL in milliseconds; ARGV[4]: '1' to refresh it.
-- Returns 2 if the list is missing, else {length after}. The size in the
-- list's marker (see item_prelude.lua) is kept, when it has one: the values
-- dropped are walked before they go.
local state, size = open('list')
if state == 'missing' then
  return 2
end
local len = redis.call('LLEN', KEYS[3])
local first, last = slice(1, len)
if first then
  if size then
    size = size - walked_size('LRANGE', 0, first - 1) - walked_size('LRANGE', last + 1, len - 1)
  end
  redis.call('LTRIM', KEYS[3], first, last)
else
  redis.call('DEL', KEYS[3])
end
len = redis.call('LLEN', KEYS[3])
close('list', state, ARGV[3], ARGV[4], size)
return {len}
