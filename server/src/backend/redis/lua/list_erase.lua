-- script: item_prelude collection_prelude
-- ListErase. ARGV[1]: 'all', or 'ranges' followed by pairs of (first
-- position, count), positions in the list as it was before the call.
-- Returns 2 if the list is missing, else {length after}. The size in the
-- list's marker (see item_prelude.lua) is kept, when it has one: that of
-- the values that stay.
-- Values per RPUSH: `unpack` is bounded by Lua's C stack.
local CHUNK = 1000

local state, size = open('list')
if state == 'missing' then
  return 2
end
local len = redis.call('LLEN', KEYS[3])
if ARGV[1] == 'all' then
  redis.call('DEL', KEYS[3])
else
  -- The erased positions as sorted, merged [first, stop) intervals.
  local ranges = {}
  for i = 2, #ARGV, 2 do
    local first = tonumber(ARGV[i])
    local stop = math.min(first + tonumber(ARGV[i + 1]), len)
    if first < stop then
      ranges[#ranges + 1] = {first, stop}
    end
  end
  table.sort(ranges, function(a, b) return a[1] < b[1] end)
  -- Redis cannot delete by position: read what stays, and write it back.
  if #ranges > 0 then
    local kept, unread = {}, 0
    local function keep(first, stop)
      if first < stop then
        for _, value in ipairs(redis.call('LRANGE', KEYS[3], first, stop - 1)) do
          kept[#kept + 1] = value
        end
      end
    end
    for _, range in ipairs(ranges) do
      keep(unread, range[1])
      unread = math.max(unread, range[2])
    end
    keep(unread, len)
    if size then
      size = values_size(kept, 1)
    end
    redis.call('DEL', KEYS[3])
    for from = 1, #kept, CHUNK do
      redis.call('RPUSH', KEYS[3], unpack(kept, from, math.min(from + CHUNK - 1, #kept)))
    end
  end
end
len = redis.call('LLEN', KEYS[3])
close('list', state, nil, nil, size)
return {len}
