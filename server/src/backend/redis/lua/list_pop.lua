-- script: item_prelude collection_prelude
-- ListPopFront/Back. ARGV[1]: 'front' or 'back'.
-- Returns 2 if the list is missing, else {value, length after}.
local state = open('list')
if state == 'missing' then
  return 2
end
local value
if ARGV[1] == 'front' then
  value = redis.call('LPOP', KEYS[3])
else
  value = redis.call('RPOP', KEYS[3])
end
local len = redis.call('LLEN', KEYS[3])
close('list', state)
return {value, len}
