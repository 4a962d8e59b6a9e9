-- script: item_prelude collection_prelude integer
-- DictionaryIncrement. ARGV[1]: the field; ARGV[2]: the amount, as base-10
-- i64 text; ARGV[3]: the most fields a dictionary may hold; ARGV[4]: TTL in
-- milliseconds; ARGV[5]: '1' to refresh the TTL of an existing dictionary.
-- Returns the new value as text, 2 if the field's value is not an integer,
-- 3 on overflow, or {'too_large', the length it would have}; on all but
-- the first, nothing changed. The arithmetic is integer.lua's.
local state, size = open('dictionary')
local current = redis.call('HGET', KEYS[3], ARGV[1])
local high, low = 0, 0
if current then
  high, low = parse_integer(current)
  if not high then
    return 2
  end
else
  local len = redis.call('HLEN', KEYS[3]) + 1
  if len > tonumber(ARGV[3]) then
    return {'too_large', len}
  end
end
local text = add_integers(high, low, parse_integer(ARGV[2]))
if not text then
  return 3
end
redis.call('HSET', KEYS[3], ARGV[1], text)
if size then
  size = size + entry_size(#ARGV[1], #text)
  if current then
    size = size - entry_size(#ARGV[1], #current)
  end
end
close('dictionary', state, ARGV[4], ARGV[5], size)
return text
