-- script: item_prelude collection_prelude
-- SortedSetIncrement. ARGV[1]: the value; ARGV[2]: the amount (exact
-- decimal text); ARGV[3]: the most elements a sorted set may hold;
-- ARGV[4]: TTL in milliseconds; ARGV[5]: '1' to refresh it.
-- Returns {new score as '%.17g' text}, {'not_finite'} or {'too_large',
-- the length it would have} (and nothing changed). The size in the set's
-- marker (see item_prelude.lua) is kept, when it has one.
local state, size = open('sorted_set')
local held = false
if state == 'ok' then
  held = redis.call('ZSCORE', KEYS[3], ARGV[1])
end
local score = (held and tonumber(held) or 0) + tonumber(ARGV[2])
if score ~= score or score == math.huge or score == -math.huge then
  return {'not_finite'}
end
if not held then
  local len = 1
  if state == 'ok' then
    len = len + redis.call('ZCARD', KEYS[3])
  end
  if len > tonumber(ARGV[3]) then
    return {'too_large', len}
  end
  if size then
    size = size + element_size(ARGV[1])
  end
end
if score == 0 then
  score = 0 -- never -0
end
local text = string.format('%.17g', score)
redis.call('ZADD', KEYS[3], text, ARGV[1])
close('sorted_set', state, ARGV[4], ARGV[5], size)
return {text}
