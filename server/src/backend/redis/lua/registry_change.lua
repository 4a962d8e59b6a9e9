-- The cache registry: KEYS[1], a hash of cache name -> generation;
-- KEYS[2], the counter generations come from. Both under the {jiffy} tag.
-- ARGV[1]: 'create', 'flush' or 'delete'; ARGV[2]: the name;
-- ARGV[3]: for create, the most caches allowed.
--
-- Returns the generation this change takes (always a fresh one, so changes
-- are ordered), -1 if the cache does not exist (flush, delete) or already
-- does (create), -2 if there are already ARGV[3] caches.
local change, name = ARGV[1], ARGV[2]
local exists = redis.call('HEXISTS', KEYS[1], name) == 1
if change == 'create' then
  if exists then
    return -1
  end
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
    return -2
  end
elseif not exists then
  return -1
end
local generation = redis.call('INCR', KEYS[2])
if change == 'delete' then
  redis.call('HDEL', KEYS[1], name)
else
  redis.call('HSET', KEYS[1], name, generation)
end
return generation
