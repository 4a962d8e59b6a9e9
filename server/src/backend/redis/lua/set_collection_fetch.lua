-- script: read_prelude item_prelude collection_prelude
-- SetFetch. Returns 2 if the set is missing, else its elements. The size
-- its marker carries answers TOO_LARGE or SIZE without a walk of the set.
local state, size = open('set')
if state == 'missing' then
  return 2
end
if size then
  local refused = sized(size)
  if refused then
    return refused
  end
end
return within_cap(redis.call('SMEMBERS', KEYS[3]))
