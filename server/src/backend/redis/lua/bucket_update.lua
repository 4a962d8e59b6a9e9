-- script
-- Brings one bucket of a cache to a registry change. KEYS[1]: the bucket's
-- generation key. ARGV[1]: the change's generation, negative for a delete;
-- ARGV[2]: how long a delete's marker stays, in milliseconds. KEYS[2...]:
-- for bucket 0, the cache's state kept in its slot (its webhooks), which a
-- delete removes with the marker, atomically.
--
-- Changes carry increasing generations, so a bucket takes one only if it
-- is newer than what it holds: two front-ends updating the same cache at
-- once leave every bucket at the latest change, whatever the order in which
-- their writes arrive.
local new = tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if math.abs(held) >= math.abs(new) then
  return 0
end
if new < 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  for i = 2, #KEYS do
    redis.call('DEL', KEYS[i])
  end
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
