-- script: item_prelude collection_prelude leaderboard_prelude
-- GetByScore. ARGV[1]: the least score ('-inf', or a number: inclusive);
-- ARGV[2]: the bound above ('+inf', or '(' and a number: exclusive);
-- ARGV[3], ARGV[4]: offset and limit; ARGV[5]: 'a' or 'd'. Returns
-- {rank of the first answered, member, score, ...} ({0} for a missing
-- board): ranks are of the whole board, in the order asked.
if open('leaderboard') == 'missing' then
  return {0}
end
local min, max, offset, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local first
local elements
if ARGV[5] == 'd' then
  -- Ranked from the top: the elements at or above the bound come first.
  local above = 0
  if max ~= '+inf' then
    above = redis.call('ZCOUNT', KEYS[3], string.sub(max, 2), '+inf')
  end
  first = above + offset
  elements = redis.call('ZREVRANGEBYSCORE', KEYS[3], max, min, 'WITHSCORES', 'LIMIT', offset, limit)
else
  local below = 0
  if min ~= '-inf' then
    below = redis.call('ZCOUNT', KEYS[3], '-inf', '(' .. min)
  end
  first = below + offset
  elements = redis.call('ZRANGEBYSCORE', KEYS[3], min, max, 'WITHSCORES', 'LIMIT', offset, limit)
end
table.insert(elements, 1, first)
return elements
