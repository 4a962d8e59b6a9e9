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
local state = open('set')
if state == 'missing' then
  return 2
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

local picked = redis.call('SRANDMEMBER', KEYS[3], ARGV[1])
local found = 0
for i = 1, #picked do
  found = found + 1 + varint_len(#picked[i]) + #picked[i]
end
local size = 1 + varint_len(found) + found
if size > max_answer then
  return redis.status_reply('TOO_LARGE ' .. size)
end
if size > answer_cap then
  return redis.status_reply('SIZE ' .. size)
end
-- In slices: unpack of a whole large set would overflow Lua's stack.
for first = 1, #picked, 1000 do
  redis.call('SREM', KEYS[3], unpack(picked, first, math.min(first + 999, #picked)))
end
close('set', state)
return picked
