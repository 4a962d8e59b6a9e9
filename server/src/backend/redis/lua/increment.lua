-- script: item_prelude integer
-- ARGV[1]: the amount, as base-10 i64 text; ARGV[2]: TTL in milliseconds.
-- Returns the new total as text, 2 if the value is not an integer, 3 on
-- overflow. The arithmetic is integer.lua's.
local kind = item_kind()
if kind ~= nil and kind ~= 'scalar' then
  return wrong_type('scalar', kind)
end
local raw = current_raw()
local high, low = 0, 0
if raw then
  high, low = parse_integer(string.sub(raw, #tag + 1))
  if not high then
    return 2
  end
end
local text = add_integers(high, low, parse_integer(ARGV[1]))
if not text then
  return 3
end
redis.call('SET', KEYS[2], tag .. text, 'PX', ARGV[2])
redis.call('DEL', KEYS[3]) -- a stale collection of an older generation
return text
