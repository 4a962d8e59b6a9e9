-- prelude
-- Shared head of the leaderboard scripts (after item_prelude.lua and
-- collection_prelude.lua, whose `open` checks the board's marker).
--
-- KEYS[2] is the board's marker and KEYS[3] its Redis sorted set, under
-- key names of their own (backend/redis/leaderboard.rs), so a board never
-- meets an item of the same name. Members are ids as 4 big-endian bytes,
-- so Redis's order of tied scores, by member bytes, is the order of ids.
-- A board has no TTL: neither key expires.

-- After a write: marks a board just created, unmarks one emptied.
local function settle(state)
  if redis.call('EXISTS', KEYS[3]) == 0 then
    redis.call('DEL', KEYS[2])
  elseif state == 'missing' then
    redis.call('SET', KEYS[2], collection_tag .. 'leaderboard')
  end
end

