-- script
-- One front-end's change to a cache's count of open subscriptions
-- (`crate::cache_limits::subscriptions`): KEYS[1], a hash in the cache's
-- hash slot of each front-end's id to "count:deadline" (milliseconds, by
-- Redis's clock); ARGV[1], this front-end's id; ARGV[2], `open` (one more
-- if the live counts sum to under ARGV[3], the limit), `close` (one fewer)
-- or `refresh` (this front-end holds ARGV[3]); ARGV[4], the lease in
-- milliseconds. Counts past their deadline are dropped: their front-end
-- stopped refreshing them. Answers 1, or 0 for an open over the limit.
local id, mode, n, lease = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local fields = redis.call('HGETALL', KEYS[1])
local mine, others = 0, 0
for i = 1, #fields, 2 do
  local count, deadline = string.match(fields[i + 1], '^(%d+):(%d+)$')
  if count == nil or tonumber(deadline) < now then
    redis.call('HDEL', KEYS[1], fields[i])
  elseif fields[i] == id then
    mine = tonumber(count)
  else
    others = others + tonumber(count)
  end
end
if mode == 'open' then
  if mine + others >= n then
    return 0
  end
  mine = mine + 1
elseif mode == 'close' then
  mine = math.max(mine - 1, 0)
else
  mine = n
end
if mine == 0 then
  redis.call('HDEL', KEYS[1], id)
else
  redis.call('HSET', KEYS[1], id, mine .. ':' .. (now + lease))
  -- No count outlives its lease, so neither does the hash.
  redis.call('PEXPIRE', KEYS[1], lease)
end
return 1
