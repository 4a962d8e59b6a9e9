-- prelude
-- Shared head of every item script (its scripts' headers name it).
--
-- KEYS[1]: the cache bucket's generation key: "<n>" while the cache lives,
--          "-<n>" once deleted, absent if it never existed.
-- KEYS[2]: the item's key, in the same slot (same hash tag).
-- KEYS[3]: the item's collection data key, in the same slot.
--
-- A scalar item's value is stored in KEYS[2] as "<generation>:<payload>".
-- A collection is stored in KEYS[3] (a Redis hash, set, list or sorted set)
-- and marked in KEYS[2] by "<generation>#<type>", with the same TTL on both.
-- A collection's marker also carries the size of its fetch's answer,
-- "<generation>#dictionary:<bytes>": the bytes its elements (a
-- dictionary's entries) take as the answer encodes them (`element_size`
-- and `entry_size` in collection_prelude.lua), as the embedded store counts
-- them. Every script that writes it keeps it, so a fetch too large to send
-- is refused without a walk, and named by the size the embedded store
-- names; a marker without it
-- (written by an older front-end) leaves the fetch to count as it reads,
-- and the writes to keep none.
-- A flush gives every bucket a new generation, so older items and markers
-- stop matching at once without a scan; they are overwritten or expire by
-- their TTL (a stale collection is cleared when its key is next written).
local generation = redis.call('GET', KEYS[1])
if not generation or string.byte(generation, 1) == 45 then -- 45 is '-'
  return 0 -- no such cache
end
local tag = generation .. ':'
local collection_tag = generation .. '#'

-- The stored value when it is a scalar of the current generation, else nil.
local function current_raw()
  local raw = redis.call('GET', KEYS[2])
  if raw and string.sub(raw, 1, #tag) == tag then
    return raw
  end
  return nil
end

-- What the item at `item_key` holds: nil (missing), 'scalar', or a
-- collection type ('dictionary', 'set', 'list', 'sorted_set'); and the
-- scalar's raw value, or the size its marker carries (nil without one).
local function kind_of(item_key)
  local raw = redis.call('GET', item_key)
  if not raw then
    return nil
  end
  if string.sub(raw, 1, #tag) == tag then
    return 'scalar', raw
  end
  if string.sub(raw, 1, #collection_tag) == collection_tag then
    local marked = string.sub(raw, #collection_tag + 1)
    local kind, size = string.match(marked, '^([^:]*):(%d+)$')
    if kind then
      return kind, tonumber(size)
    end
    return marked
  end
  return nil
end

-- What KEYS[2] holds, as `kind_of` answers.
local function item_kind()
  return kind_of(KEYS[2])
end

-- The error a call of type `expected` answers on an item of type `found`;
-- the front-end reads it as the wrong-type status.
local function wrong_type(expected, found)
  return redis.error_reply('JIFFYTYPE ' .. expected .. ' ' .. found)
end
