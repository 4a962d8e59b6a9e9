-- script: item_prelude collection_prelude
-- ListRemove. ARGV[1]: the value every occurrence of which is removed.
-- Returns 2 if the list is missing, else {length after}.
local state = open('list')
if state == 'missing' then
  return 2
end
redis.call('LREM', KEYS[3], 0, ARGV[1])
local len = redis.call('LLEN', KEYS[3])
close('list', state)
return {len}
