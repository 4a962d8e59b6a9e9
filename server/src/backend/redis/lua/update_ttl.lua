-- script: item_prelude
-- ARGV[1]: 'increase', 'decrease' or 'overwrite'; ARGV[2]: TTL in milliseconds.
-- Returns 1 when set, 2 when the rule refused, 3 when the item is missing.
local kind = item_kind()
if not kind then
  return 3
end
local ttl = tonumber(ARGV[2])
local left = redis.call('PTTL', KEYS[2])
local mode = ARGV[1]
if (mode == 'increase' and ttl <= left) or (mode == 'decrease' and ttl >= left) then
  return 2
end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
if kind ~= 'scalar' then
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
end
return 1
