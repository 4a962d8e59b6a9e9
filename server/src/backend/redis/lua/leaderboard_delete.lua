-- script: item_prelude collection_prelude leaderboard_prelude
-- DeleteLeaderboard. Returns 1, whether or not the board existed.
open('leaderboard')
redis.call('DEL', KEYS[2], KEYS[3])
return 1
