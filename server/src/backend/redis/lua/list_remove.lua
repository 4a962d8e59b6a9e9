-- script: item_prelude collection_prelude
-- ListRemove. ARGV[1]: the value every occurrence of which is removed.
-- Returns 2 if the list is missing, else {length after}. The size in the
-- list's marker (see item_prelude.lua) is kept, when it has one.
local state, size = open('list')
if state == 'missing' then
  return 2
end
local removed = redis.call('LREM', KEYS[3], 0, ARGV[1])
if size then
  size = size - removed * element_size(ARGV[1])
end
local len = redis.call('LLEN', KEYS[3])
close('list', state, nil, nil, size)
return {len}
