-- prelude
-- Shared head of every collection script (after item_prelude.lua).
--
-- A collection script checks the item with `open`, changes KEYS[3], then
-- calls `close`, which keeps the marker and the TTLs right and removes an
-- emptied collection.

-- 'ok' when KEYS[2] marks a collection of `expected` type, 'missing' when
-- the item does not exist (a stale collection of an older generation is
-- cleared); raises the wrong-type error otherwise. Then the size its marker
-- carries (see item_prelude.lua): nil when it has none, 0 when missing
-- (as is a collection whose data Redis itself evicted).
local function open(expected)
  local kind, size = item_kind()
  if kind == expected then
    if size and redis.call('EXISTS', KEYS[3]) == 0 then
      size = 0
    end
    return 'ok', size
  end
  if kind ~= nil then
    error(wrong_type(expected, kind))
  end
  redis.call('DEL', KEYS[3])
  return 'missing', 0
end

-- After a write: `state` is what `open` answered; `ttl_ms` and `refresh`
-- are the call's collection TTL (nil for a call that creates nothing and
-- keeps the TTL); `size`, for a type whose marker carries one, the size
-- after the write (nil: unknown, and the marker keeps none). A new
-- collection gets its marker and TTL; an existing one's TTL is reset when
-- `refresh` is '1'; an emptied one is removed.
local function close(expected, state, ttl_ms, refresh, size)
  if redis.call('EXISTS', KEYS[3]) == 0 then
    if state == 'ok' then
      redis.call('DEL', KEYS[2])
    end
    return
  end
  local marker = collection_tag .. expected
  if size then
    marker = marker .. ':' .. size
  end
  if state == 'missing' then
    -- A zero TTL (never a refreshed one) keeps nothing of a new collection.
    if ttl_ms == '0' then
      redis.call('DEL', KEYS[3])
      return
    end
    redis.call('SET', KEYS[2], marker, 'PX', ttl_ms)
    redis.call('PEXPIRE', KEYS[3], ttl_ms)
    return
  end
  if size then
    redis.call('SET', KEYS[2], marker, 'KEEPTTL')
  end
  if ttl_ms and refresh == '1' then
    redis.call('PEXPIRE', KEYS[2], ttl_ms)
    redis.call('PEXPIRE', KEYS[3], ttl_ms)
  end
end
