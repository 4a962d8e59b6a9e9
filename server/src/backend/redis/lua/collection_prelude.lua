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
  -- Below zero only from a marker that counted otherwise (an older
  -- front-end's): kept as unknown rather than as a type no one reads.
  local dropped = size and size < 0
  if dropped then
    size = nil
  end
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
  if size or dropped then
    redis.call('SET', KEYS[2], marker, 'KEEPTTL')
  end
  if ttl_ms and refresh == '1' then
    redis.call('PEXPIRE', KEYS[2], ttl_ms)
    redis.call('PEXPIRE', KEYS[3], ttl_ms)
  end
end

-- The bytes protobuf takes to write `n` as a varint.
local function varint_len(n)
  local len = 1
  while n >= 128 do
    n = math.floor(n / 128)
    len = len + 1
  end
  return len
end

-- The bytes `len` bytes take as one element of an answer's repeated bytes
-- field (a list's values, a set's elements, a sorted set's values): a tag,
-- its length and its bytes. The rule of `repeated_len` in
-- store/answer.rs, so both stores size an answer alike.
local function repeated_len(len)
  return 1 + varint_len(len) + len
end

-- The bytes `value` takes as one element of an answer: a list's, a set's
-- or a sorted set's marker keeps the sum over its elements.
local function element_size(value)
  return repeated_len(#value)
end

-- The bytes a dictionary's entry of a field of `field_len` bytes and a
-- value of `value_len` takes in a DictionaryFetch answer: a field-value
-- pair (an empty field or value left out, proto3's default) as one
-- repeated element. The rule of `entry_encoded_len` in store/dictionary.rs;
-- a dictionary's marker keeps the sum over its entries.
local function entry_size(field_len, value_len)
  local pair = 0
  for _, len in ipairs({field_len, value_len}) do
    if len > 0 then
      pair = pair + repeated_len(len)
    end
  end
  return repeated_len(pair)
end

-- The sum of `entry_size` over a flat field, value, field, value, ...
-- (HGETALL's reply).
local function entries_size(flat)
  local size = 0
  for i = 1, #flat, 2 do
    size = size + entry_size(#flat[i], #flat[i + 1])
  end
  return size
end

-- The encoded size of a set's SetPop or SetSample answer whose elements
-- take `found` bytes as `element_size` counts them: the `found` message
-- (its tag and length, then the elements). The rule of `pop_answer_size`
-- in backend/set.rs.
local function found_size(found)
  return repeated_len(found)
end

-- The sum of `element_size` over values[1], values[1 + step], ... (step 2:
-- the values of a flat value, score list).
local function values_size(values, step)
  local size = 0
  for i = 1, #values, step do
    size = size + element_size(values[i])
  end
  return size
end

-- A walk reads at most this many elements at a time, and aims at this
-- many bytes a read by the elements' average size so far: what a walk
-- holds in Redis's memory at once.
local WALK_ELEMENTS = 512
local WALK_BYTES = 65536

-- The sum of `element_size` over positions first..last (0-based,
-- inclusive) of KEYS[3], a list (`command` 'LRANGE') or a sorted set
-- ('ZRANGE': ascending ranks), read a slice at a time. Once past `over`
-- (nil: never) it stops and answers what it has counted: a lower bound.
local function walked_size(command, first, last, over)
  local size, counted, step = 0, 0, 16
  local at = first
  while at <= last do
    local part = redis.call(command, KEYS[3], at, math.min(at + step - 1, last))
    size = size + values_size(part, 1)
    counted = counted + #part
    at = at + step
    if over and size > over then
      return size
    end
    if size > 0 then
      step = math.max(1, math.min(WALK_ELEMENTS, math.floor(WALK_BYTES * counted / size)))
    end
  end
  return size
end

-- The size of the answer that reads positions first..last of KEYS[3] (as
-- `walked_size` takes them) of `len` elements, found before it is read:
-- `kept`, the size the marker keeps (nil: none), when the range is the
-- whole; nil, not counted, when the whole is within `over` (so is the
-- range, and its answer is counted once read); else walked, up to past
-- `over`, or, when fewer elements lie outside the range than the walk
-- would read (by their average size), `kept` less a walk of those. A walk
-- that passes `over` stops there, knowing only that the range is larger:
-- it answers `over` + 1, the least size that is. The second value is true
-- when the size is not to be named in a refusal: unless it is the whole's
-- kept size, it may be where a walk stopped, so no part is named by its
-- size (the embedded store names none either).
local function range_size(command, first, last, len, kept, over)
  if kept and first == 0 and last == len - 1 then
    return kept, false
  end
  if kept and kept <= over then
    return nil
  end
  if kept then
    local inside = math.min(last - first + 1, over * len / kept + 1)
    if len - (last - first + 1) < inside then
      return kept - walked_size(command, 0, first - 1) - walked_size(command, last + 1, len - 1), true
    end
  end
  return math.min(walked_size(command, first, last, over), over + 1), true
end
