-- script: read_prelude item_prelude collection_prelude list_slice
-- ListFetch. ARGV[1], ARGV[2]: the slice (see list_slice.lua).
-- Returns 2 if the list is missing, else the values selected (maybe none).
if open('list') == 'missing' then
  return 2
end
local first, last = slice(1, redis.call('LLEN', KEYS[3]))
if not first then
  return {}
end
return within_cap(redis.call('LRANGE', KEYS[3], first, last))
