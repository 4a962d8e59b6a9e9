-- script: item_prelude collection_prelude
-- SortedSetGetRank. ARGV[1]: the value; ARGV[2]: 'asc' or 'desc'.
-- Returns 2 if the set is missing, else {rank}, or {} when the set does
-- not hold the value.
if open('sorted_set') == 'missing' then
  return 2
end
local rank
if ARGV[2] == 'desc' then
  rank = redis.call('ZREVRANK', KEYS[3], ARGV[1])
else
  rank = redis.call('ZRANK', KEYS[3], ARGV[1])
end
if not rank then
  return {}
end
return {rank}
