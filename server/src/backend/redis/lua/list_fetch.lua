-- script: read_prelude item_prelude collection_prelude list_slice
-- ListFetch. ARGV[1], ARGV[2]: the slice (see list_slice.lua).
-- Returns 2 if the list is missing, else the values selected (maybe none).
-- The answer is sized before it is read (`range_size`): by the size the
-- marker keeps for the whole list, or by a walk of the slice that stops
-- past --max-response-size; so a refused fetch reads no more than that,
-- and one of the whole list reads nothing.
local state, kept = open('list')
if state == 'missing' then
  return 2
end
local len = redis.call('LLEN', KEYS[3])
local first, last = slice(1, len)
if not first then
  return {}
end
local size, unnamed = range_size('LRANGE', first, last, len, kept, max_answer)
local refused = size and sized(size, unnamed)
if refused then
  return refused
end
local values = redis.call('LRANGE', KEYS[3], first, last)
return sized(size or values_size(values, 1)) or values
