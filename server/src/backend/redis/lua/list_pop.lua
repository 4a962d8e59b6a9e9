-- script: item_prelude collection_prelude
-- ListPopFront/Back. ARGV[1]: 'front' or 'back'.
-- Returns 2 if the list is missing, else {value, length after}. The size
-- in the list's marker (see item_prelude.lua) is kept, when it has one.
local state, size = open('list')
if state == 'missing' then
  return 2
end
local value
if ARGV[1] == 'front' then
  value = redis.call('LPOP', KEYS[3])
else
  value = redis.call('RPOP', KEYS[3])
end
if size and value then
  size = size - element_size(value)
end
local len = redis.call('LLEN', KEYS[3])
close('list', state, nil, nil, size)
return {value, len}
