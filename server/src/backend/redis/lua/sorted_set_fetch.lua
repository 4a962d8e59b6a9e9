-- script: read_prelude item_prelude collection_prelude list_slice
-- SortedSetFetch. ARGV[1]: 'asc' or 'desc'. ARGV[2]: 'index' or 'score'.
-- By index: ARGV[3], ARGV[4]: the slice, in the fetch's order (see
-- list_slice.lua). By score: ARGV[3], ARGV[4]: the min and max as ZRANGE
-- takes them ('-inf', '(1.5e0', ...); ARGV[5]: the offset; ARGV[6]: the
-- count (-1: all).
-- Returns 2 if the set is missing, else value, score, value, score, ...
if open('sorted_set') == 'missing' then
  return 2
end
local reverse = ARGV[1] == 'desc'
local args
if ARGV[2] == 'index' then
  local first, last = slice(3, redis.call('ZCARD', KEYS[3]))
  if not first then
    return {}
  end
  args = {KEYS[3], first, last}
else
  if reverse then
    args = {KEYS[3], ARGV[4], ARGV[3], 'BYSCORE'}
  else
    args = {KEYS[3], ARGV[3], ARGV[4], 'BYSCORE'}
  end
end
if reverse then
  args[#args + 1] = 'REV'
end
if ARGV[2] == 'score' then
  args[#args + 1] = 'LIMIT'
  args[#args + 1] = ARGV[5]
  args[#args + 1] = ARGV[6]
end
args[#args + 1] = 'WITHSCORES'
return within_cap(redis.call('ZRANGE', unpack(args)))
