-- script
-- The cache registry: KEYS[1], a hash of cache name -> generation;
-- KEYS[2], the counter generations come from. Both under the {jiffy} tag.
-- ARGV[1]: 'create', 'flush' or 'delete'; ARGV[2]: the name;
-- ARGV[3]: for create, the most caches allowed.
--
-- Returns {outcome, generation}. Outcomes: 'done', with the fresh
-- generation the change takes (fresh every time, so changes are ordered);
-- 'exists' (create), with the cache's current generation; 'missing'
-- (flush, delete); 'full' (create, ARGV[3] caches already).
local change, name = ARGV[1], ARGV[2]
local current = redis.call('HGET', KEYS[1], name)
if change == 'create' then
  if current then
    return { 'exists', tonumber(current) }
  end
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
    return { 'full', 0 }
  end
elseif not current then
  return { 'missing', 0 }
end
local generation = redis.call('INCR', KEYS[2])
if change == 'delete' then
  redis.call('HDEL', KEYS[1], name)
else
  redis.call('HSET', KEYS[1], name, generation)
end
return { 'done', generation }
