-- script: item_prelude collection_prelude leaderboard_prelude
-- GetLeaderboardLength. Returns {length} (0 for a missing board).
if open('leaderboard') == 'missing' then
  return {0}
end
return {redis.call('ZCARD', KEYS[3])}
