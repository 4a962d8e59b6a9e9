-- script: item_prelude collection_prelude
-- SetUnion. ARGV[1]: the most elements a set may hold; ARGV[2]: TTL in
-- milliseconds; ARGV[3]: '1' to refresh the TTL of an existing set;
-- ARGV[4..]: the elements (maybe none, maybe repeated).
-- Returns {length after the write} (0: no set, as none was created), or
-- {'too_large', the length it would have} (and nothing changed). Keeps the
-- size in the set's marker (see item_prelude.lua) when it has one.
local FIRST_ELEMENT = 4
-- Elements per SADD: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('set')
local len = redis.call('SCARD', KEYS[3])
local given = #ARGV - FIRST_ELEMENT + 1
local max = tonumber(ARGV[1])
if size or len + given > max then
  -- Only when the limit may be at stake or the size is kept: what the
  -- union really adds.
  local seen, added = {}, 0
  for i = FIRST_ELEMENT, #ARGV do
    local element = ARGV[i]
    if not seen[element] then
      seen[element] = true
      if redis.call('SISMEMBER', KEYS[3], element) == 0 then
        added = added + 1
        if size then
          size = size + element_size(element)
        end
      end
    end
  end
  if len + added > max then
    return {'too_large', len + added}
  end
end
for from = FIRST_ELEMENT, #ARGV, CHUNK do
  redis.call('SADD', KEYS[3], unpack(ARGV, from, math.min(from + CHUNK - 1, #ARGV)))
end
close('set', state, ARGV[2], ARGV[3], size)
return {redis.call('SCARD', KEYS[3])}
