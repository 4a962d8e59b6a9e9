-- script: item_prelude collection_prelude
-- SortedSetUnionStore. KEYS[1..3]: the destination's. KEYS[4..]: the item
-- key and data key of each source in the destination's slot, in pairs.
-- ARGV[1]: TTL in milliseconds; ARGV[2]: the most elements a sorted set
-- may hold; ARGV[3]: 'sum', 'min' or 'max'; ARGV[4]: the number of
-- sources; then for each source, in the request's order, its weight
-- (exact decimal text) and either 'key', i (its keys are KEYS[2i + 2] and
-- KEYS[2i + 3]: read here, atomically with the write) or 'given', n and n
-- value, score pairs (a source of another slot, read by the front-end
-- just before), or 'again', s: the elements of the s-th source (1-based),
-- a set named twice, read and passed once but added once per naming.
-- Returns {length after}, {'not_finite'} or {'too_large', the length it
-- would have} (and nothing changed). A source of another type raises the
-- wrong-type error; a missing one counts as empty. The destination's
-- marker (see item_prelude.lua) gets the size of what it now holds.
local CHUNK = 500

local aggregate = ARGV[3]
local scores = {}
local count = 0
local function add(value, score)
  local held = scores[value]
  if held == nil then
    scores[value] = score
    count = count + 1
  elseif aggregate == 'sum' then
    scores[value] = held + score
  elseif aggregate == 'min' then
    scores[value] = math.min(held, score)
  else
    scores[value] = math.max(held, score)
  end
end
-- A score times a weight, a zero product as 0 (never -0).
local function weighted(score, weight)
  local product = tonumber(score) * weight
  if product == 0 then
    return 0
  end
  return product
end

-- Each source's elements as a flat value, score list and its bounds, for
-- an 'again' naming it.
local sources = {}
local function add_all(flat, first, last, weight)
  for j = first, last, 2 do
    add(flat[j], weighted(flat[j + 1], weight))
  end
end

local at = 5
for s = 1, tonumber(ARGV[4]) do
  local weight = tonumber(ARGV[at])
  if ARGV[at + 1] == 'again' then
    local source = sources[tonumber(ARGV[at + 2])]
    at = at + 3
    add_all(source[1], source[2], source[3], weight)
  elseif ARGV[at + 1] == 'key' then
    local i = tonumber(ARGV[at + 2])
    at = at + 3
    local item_key, data_key = KEYS[2 * i + 2], KEYS[2 * i + 3]
    local kind = kind_of(item_key)
    if kind ~= nil and kind ~= 'sorted_set' then
      error(wrong_type('sorted_set', kind))
    end
    local flat = {}
    if kind == 'sorted_set' then
      flat = redis.call('ZRANGE', data_key, 0, -1, 'WITHSCORES')
    end
    sources[s] = {flat, 1, #flat}
    add_all(flat, 1, #flat, weight)
  else
    local n = tonumber(ARGV[at + 2])
    local from = at + 3
    at = from + 2 * n
    sources[s] = {ARGV, from, at - 1}
    add_all(ARGV, from, at - 1, weight)
  end
end

for _, score in pairs(scores) do
  if score ~= score or score == math.huge or score == -math.huge then
    return {'not_finite'}
  end
end
local state = open('sorted_set')
if count > tonumber(ARGV[2]) then
  return {'too_large', count}
end
redis.call('DEL', KEYS[3])
local size = 0
local args = {}
for value, score in pairs(scores) do
  size = size + element_size(value)
  args[#args + 1] = string.format('%.17g', score)
  args[#args + 1] = value
  if #args >= 2 * CHUNK then
    redis.call('ZADD', KEYS[3], unpack(args))
    args = {}
  end
end
if #args > 0 then
  redis.call('ZADD', KEYS[3], unpack(args))
end
close('sorted_set', state, ARGV[1], '1', size)
return {count}
