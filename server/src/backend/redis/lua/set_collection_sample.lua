-- script: read_prelude item_prelude collection_prelude
-- SetSample. ARGV[1]: the most elements to answer (0 and up, at most the
-- largest signed 64-bit integer).
-- Returns 2 if the set is missing, else up to that many distinct elements,
-- at random, left in the set. An answer is sized as it encodes
-- (`found_size`), as the handler sizes the embedded store's.
local state, kept = open('set')
if state == 'missing' then
  return 2
end
if ARGV[1] == '0' then
  return {}
end
-- A sample of the whole set is sized by the size its marker keeps, as
-- SetFetch is, without a pick.
if kept and redis.call('SCARD', KEYS[3]) <= tonumber(ARGV[1]) then
  local refused = sized(found_size(kept))
  if refused then
    return refused
  end
end
-- A positive count: distinct elements, the whole set when it holds no more.
local picked = redis.call('SRANDMEMBER', KEYS[3], ARGV[1])
return sized(found_size(values_size(picked, 1))) or picked
