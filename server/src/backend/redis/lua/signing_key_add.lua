-- script
-- Adds a signing key (`crate::auth::signing_keys`) unless the live keys are
-- at the cap: KEYS[1], the hash of signing keys (id -> "<expires_at> <x> <y>");
-- ARGV[1], the id; ARGV[2], its record; ARGV[3], the cap; ARGV[4], now in
-- seconds since the epoch. At the cap, expired keys are dropped first.
-- Answers 1 when added, 0 when the cap is still reached.
local cap = tonumber(ARGV[3])
if redis.call('HLEN', KEYS[1]) >= cap then
  local now = tonumber(ARGV[4])
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local expires_at = tonumber(string.match(all[i + 1], '^%d+')) or 0
    if expires_at <= now then
      redis.call('HDEL', KEYS[1], all[i])
    end
  end
  if redis.call('HLEN', KEYS[1]) >= cap then
    return 0
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
