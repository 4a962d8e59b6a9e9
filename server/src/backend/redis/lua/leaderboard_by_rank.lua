-- script: item_prelude collection_prelude leaderboard_prelude
-- GetByRank. ARGV[1], ARGV[2]: the first and the last rank (inclusive);
-- ARGV[3]: 'a' for ascending, 'd' for descending. Returns the flat
-- {member, score, ...} of those ranks ({} for a missing board).
if open('leaderboard') == 'missing' then
  return {}
end
local command = ARGV[3] == 'd' and 'ZREVRANGE' or 'ZRANGE'
return redis.call(command, KEYS[3], ARGV[1], ARGV[2], 'WITHSCORES')
