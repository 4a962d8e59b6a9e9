-- script: read_prelude item_prelude collection_prelude
-- SetFetch. Returns 2 if the set is missing, else its elements. The size
-- its marker carries answers TOO_LARGE or SIZE without a walk of the set;
-- without one (an older front-end's marker) the set is read, then sized
-- alike.
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
local elements = redis.call('SMEMBERS', KEYS[3])
return sized(values_size(elements, 1)) or elements
