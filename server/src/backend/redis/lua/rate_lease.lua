-- script
-- A lease of tokens from a cache's shared rate bucket (`crate::cache_limits`):
-- KEYS[1], a hash {tokens, at} in the cache's hash slot; ARGV[1], the rate
-- (tokens a second, also the bucket's capacity); ARGV[2], the tokens asked.
-- Refills by Redis's own clock, so front-ends' clocks need not agree, then
-- grants what the bucket holds in whole tokens, at most the tokens asked.
-- Answers the tokens granted.
local rate = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or rate
local at = tonumber(held[2]) or now
if now > at then
  tokens = math.min(rate, tokens + (now - at) * rate / 1000)
end
local grant = 0
if tokens >= 1 then
  grant = math.min(want, math.floor(tokens))
end
tokens = tokens - grant
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
-- Idle for a minute, the bucket is full again anyway.
redis.call('PEXPIRE', KEYS[1], 60000)
return grant
