-- script: read_prelude item_prelude collection_prelude
-- DictionaryFetch. Returns 2 if the dictionary is missing, else field,
-- value, field, value, ... (in Redis's order). The size its marker carries
-- answers TOO_LARGE or SIZE without a walk of the hash (one refused fetch
-- of 8 MiB otherwise held Redis for tens of milliseconds); without one
-- (an older front-end's marker) the hash is read, then sized alike.
local state, size = open('dictionary')
if state == 'missing' then
  return 2
end
if size then
  local refused = sized(size)
  if refused then
    return refused
  end
end
local entries = redis.call('HGETALL', KEYS[3])
return sized(entries_size(entries)) or entries
