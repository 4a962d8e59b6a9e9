-- script: item_prelude collection_prelude list_slice
-- ListRetain. ARGV[1], ARGV[2]: the slice to keep (see list_slice.lua);
-- ARGV[3]: TTL in milliseconds; ARGV[4]: '1' to refresh it.
-- Returns 2 if the list is missing, else {length after}.
local state = open('list')
if state == 'missing' then
  return 2
end
local first, last = slice(1, redis.call('LLEN', KEYS[3]))
if first then
  redis.call('LTRIM', KEYS[3], first, last)
else
  redis.call('DEL', KEYS[3])
end
local len = redis.call('LLEN', KEYS[3])
close('list', state, ARGV[3], ARGV[4])
return {len}
