-- script: read_prelude item_prelude collection_prelude
-- SetPop. ARGV[1]: how many elements to take (at least 1).
-- Returns 2 if the set is missing, else the elements taken, at random (all
-- of them when the set holds no more). The TTL is kept; an emptied set is
-- removed.
--
-- The elements are picked (SRANDMEMBER: distinct ones) and the answer sized
-- before any is removed, so a pop refused for its size changes nothing. The
-- size is that of the encoded answer, counted as `pop_answer_size` in
-- backend/set.rs counts it, so both stores refuse the same pops with the
-- same message.
local state, kept = open('set')
if state == 'missing' then
  return 2
end

-- The encoded size of an answer of these elements.
local function answer_size(elements)
  local found = values_size(elements, 1)
  return 1 + varint_len(found) + found
end

-- A pick over `answer_cap` is announced by its size ('SIZE'), and the call
-- repeated with that much charged; but the repeat picks anew, and a larger
-- pick would be announced again, a few times at most before the call
-- fails. So a pick that does not fit is tried again here, a few times, and
-- the largest announced: a later pick fits it with good odds. A pick of
-- the whole set is the same each time and is not repeated.
local whole = redis.call('SCARD', KEYS[3]) <= tonumber(ARGV[1])
local picked, size
local largest = 0
for _ = 1, 4 do
  picked = redis.call('SRANDMEMBER', KEYS[3], ARGV[1])
  size = answer_size(picked)
  if size > max_answer then
    return redis.status_reply('TOO_LARGE ' .. size)
  end
  if size <= answer_cap or whole then
    break
  end
  largest = math.max(largest, size)
end
if size > answer_cap then
  return redis.status_reply('SIZE ' .. math.max(largest, size))
end
-- In slices: unpack of a whole large set would overflow Lua's stack.
for first = 1, #picked, 1000 do
  redis.call('SREM', KEYS[3], unpack(picked, first, math.min(first + 999, #picked)))
end
if kept then
  for i = 1, #picked do
    kept = kept - #picked[i]
  end
end
close('set', state, nil, nil, kept)
return picked
