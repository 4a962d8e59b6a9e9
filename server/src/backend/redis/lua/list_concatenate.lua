-- script: item_prelude collection_prelude
-- ListPushFront/Back and ListConcatenateFront/Back.
-- ARGV[1]: 'front' or 'back'; ARGV[2]: the length to truncate to after the
-- write, from the other end (0: none); ARGV[3]: the most elements a list may
-- hold; ARGV[4]: TTL in milliseconds; ARGV[5]: '1' to refresh the TTL of an
-- existing list; ARGV[6..]: the values, in order (at least one).
-- Returns {length after the write}, or {'too_large', the length it would
-- have} (and nothing changed). The size in the list's marker (see
-- item_prelude.lua) is kept, when it has one: the values pushed added, the
-- values truncated away (walked before they go) taken off.
local FIRST_VALUE = 6
-- Values per LPUSH/RPUSH: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('list')
local len = redis.call('LLEN', KEYS[3]) + #ARGV - FIRST_VALUE + 1
local truncate = tonumber(ARGV[2])
if truncate > 0 and len > truncate then
  len = truncate
end
if len > tonumber(ARGV[3]) then
  return {'too_large', len}
end

if size then
  for i = FIRST_VALUE, #ARGV do
    size = size + element_size(ARGV[i])
  end
end

-- The values past `len` after the push, at positions first..last, no
-- longer counted in the size.
local function uncount(first, last)
  if size and first <= last then
    size = size - walked_size('LRANGE', first, last)
  end
end

if ARGV[1] == 'back' then
  for from = FIRST_VALUE, #ARGV, CHUNK do
    redis.call('RPUSH', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
  end
  -- Truncation drops from the end opposite the one written.
  uncount(0, redis.call('LLEN', KEYS[3]) - len - 1)
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
  uncount(len, redis.call('LLEN', KEYS[3]) - 1)
  redis.call('LTRIM', KEYS[3], 0, len - 1)
end
close('list', state, ARGV[4], ARGV[5], size)
return {len}
