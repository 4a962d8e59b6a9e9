-- Shared head of every collection script (after item_prelude.lua).
--
-- A collection script checks the item with `open`, changes KEYS[3], then
-- calls `close`, which keeps the marker and the TTLs right and removes an
-- emptied collection.

-- 'ok' when KEYS[2] marks a collection of `expected` type, 'missing' when
-- the item does not exist (a stale collection of an older generation is
-- cleared); raises the wrong-type error otherwise.
local function open(expected)
  local kind = item_kind()
  if kind == expected then
    return 'ok'
  end
  if kind ~= nil then
    error(wrong_type(expected, kind))
  end
  redis.call('DEL', KEYS[3])
  return 'missing'
end

-- After a write: `state` is what `open` answered; `ttl_ms` and `refresh`
-- are the call's collection TTL (nil for a call that creates nothing and
-- keeps the TTL). A new collection gets its marker and TTL; an existing
-- one's TTL is reset when `refresh` is '1'; an emptied one is removed.
local function close(expected, state, ttl_ms, refresh)
  if redis.call('EXISTS', KEYS[3]) == 0 then
    if state == 'ok' then
      redis.call('DEL', KEYS[2])
    end
    return
  end
  if state == 'missing' then
    redis.call('SET', KEYS[2], collection_tag .. expected, 'PX', ttl_ms)
    redis.call('PEXPIRE', KEYS[3], ttl_ms)
  elseif ttl_ms and refresh == '1' then
    redis.call('PEXPIRE', KEYS[2], ttl_ms)
    redis.call('PEXPIRE', KEYS[3], ttl_ms)
  end
end
