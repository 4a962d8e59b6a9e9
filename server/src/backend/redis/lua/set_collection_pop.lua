-- script: read_prelude item_prelude collection_prelude
-- SetPop. ARGV[1]: how many elements to take (at least 1).
-- Returns 2 if the set is missing, else the elements taken, at random (all
-- of them when the set holds no more). The TTL is kept; an emptied set is
-- removed.
--
-- The answer is sized before any element is removed, so a pop refused for
-- its size changes nothing. The size is that of the encoded answer
-- (`found_size`), as `pop_answer_size` in backend/set.rs counts it, so both
-- stores refuse the same pops with the same message. A pop of the whole
-- set is sized by the size its marker keeps, without a pick; a part is
-- picked (SRANDMEMBER: distinct elements), then sized.
local state, kept = open('set')
if state == 'missing' then
  return 2
end

local whole = redis.call('SCARD', KEYS[3]) <= tonumber(ARGV[1])
if whole and kept then
  local refused = sized(found_size(kept))
  if refused then
    return refused
  end
end

-- A pick over `answer_cap` is announced by its size ('SIZE'), and the call
-- repeated with that much charged; but the repeat picks anew, and a larger
-- pick would be announced again, a few times at most before the call
-- fails. So a pick that does not fit is tried again here, a few times, and
-- the largest announced: a later pick fits it with good odds. A pick of
-- the whole set is the same each time and is not repeated.
local picked, size
local largest = 0
for _ = 1, 4 do
  picked = redis.call('SRANDMEMBER', KEYS[3], ARGV[1])
  size = found_size(values_size(picked, 1))
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
  kept = kept - values_size(picked, 1)
end
close('set', state, nil, nil, kept)
return picked
