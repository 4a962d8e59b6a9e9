-- script: read_prelude item_prelude collection_prelude list_slice
-- SortedSetFetch. ARGV[1]: 'asc' or 'desc'. ARGV[2]: 'index' or 'score'.
-- By index: ARGV[3], ARGV[4]: the slice, in the fetch's order (see
-- list_slice.lua). By score: ARGV[3], ARGV[4]: the min and max as ZRANGE
-- takes them ('-inf', '(1.5e0', ...); ARGV[5]: the offset; ARGV[6]: the
-- count (-1: all).
-- Returns 2 if the set is missing, else value, score, value, score, ...
-- Either range is first turned into ascending ranks (O(log n)), so the
-- answer is sized before it is read, as ListFetch's is, and read by rank.
local state, kept = open('sorted_set')
if state == 'missing' then
  return 2
end
local reverse = ARGV[1] == 'desc'
local len = redis.call('ZCARD', KEYS[3])

-- The ascending ranks of the elements within the scores, after the offset
-- and up to the count, in the fetch's order; nil when there are none.
local function score_ranks()
  local min, max = ARGV[3], ARGV[4]
  local lowest = redis.call('ZRANGE', KEYS[3], min, max, 'BYSCORE', 'LIMIT', 0, 1)
  if #lowest == 0 then
    return nil
  end
  local bottom = redis.call('ZRANK', KEYS[3], lowest[1])
  local matched = redis.call('ZCOUNT', KEYS[3], min, max)
  local offset, count = tonumber(ARGV[5]), tonumber(ARGV[6])
  -- Past the last one answered, counted in the fetch's order.
  local stop = matched
  if count >= 0 then
    stop = math.min(matched, offset + count)
  end
  if offset >= stop then
    return nil
  end
  if reverse then
    return bottom + matched - stop, bottom + matched - 1 - offset
  end
  return bottom + offset, bottom + stop - 1
end

local first, last
if ARGV[2] == 'index' then
  first, last = slice(3, len)
  if first and reverse then
    first, last = len - 1 - last, len - 1 - first
  end
else
  first, last = score_ranks()
end
if not first then
  return {}
end
local size, unnamed = range_size('ZRANGE', first, last, len, kept, max_answer)
local refused = size and sized(size, unnamed)
if refused then
  return refused
end
local flat
if reverse then
  flat = redis.call('ZRANGE', KEYS[3], len - 1 - last, len - 1 - first, 'REV', 'WITHSCORES')
else
  flat = redis.call('ZRANGE', KEYS[3], first, last, 'WITHSCORES')
end
return sized(size or values_size(flat, 2)) or flat
