-- script: item_prelude collection_prelude
-- ListPushFront/Back and ListConcatenateFront/Back.
-- ARGV[1]: 'front' or 'back'; ARGV[2]: the length to truncate to after the
-- write, from the other end (0: none); ARGV[3]: the most elements a list may
-- hold; ARGV[4]: TTL in milliseconds; ARGV[5]: '1' to refresh the TTL of an
-- existing list; ARGV[6..]: the values, in order (at least one).
-- Returns {length after the write}, or {'too_large', the length it would
-- have} (and nothing changed).
local FIRST_VALUE = 6
-- Values per LPUSH/RPUSH: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state = open('list')
local len = redis.call('LLEN', KEYS[3]) + #ARGV - FIRST_VALUE + 1
local truncate = tonumber(ARGV[2])
if truncate > 0 and len > truncate then
  len = truncate
end
if len > tonumber(ARGV[3]) then
  return {'too_large', len}
end

if ARGV[1] == 'back' then
  for from = FIRST_VALUE, #ARGV, CHUNK do
    redis.call('RPUSH', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
  -- Truncation drops from the end opposite the one written.
  redis.call('LTRIM', KEYS[3], -len, -1)
else
  -- LPUSH puts each value in turn at the head: push the last one first so
  -- the values keep their order.
  for to = #ARGV, FIRST_VALUE, -CHUNK do
    local from = math.max(to - CHUNK + 1, FIRST_VALUE)
    local chunk = {}
    for i = to, from, -1 do
      chunk[#chunk + 1] = ARGV[i]
    end
    redis.call('LPUSH', KEYS[3], unpack(chunk))
  end
  redis.call('LTRIM', KEYS[3], 0, len - 1)
end
close('list', state, ARGV[4], ARGV[5])
return {len}
