-- Shared head of every item script (prepended in scripts.rs).
--
-- KEYS[1]: the cache bucket's generation key: "<n>" while the cache lives,
--          "-<n>" once deleted, absent if it never existed.
-- KEYS[2]: the item's key, in the same slot (same hash tag).
--
-- An item's value is stored as "<generation>:<payload>". A flush gives every
-- bucket a new generation, so older items stop matching at once without a
-- scan; they are overwritten or expire by their TTL.
local generation = redis.call('GET', KEYS[1])
if not generation or string.byte(generation, 1) == 45 then -- 45 is '-'
  return 0 -- no such cache
end
local tag = generation .. ':'

-- The stored value when it belongs to the current generation, else nil.
local function current_raw()
  local raw = redis.call('GET', KEYS[2])
  if raw and string.sub(raw, 1, #tag) == tag then
    return raw
  end
  return nil
end
