-- prelude
-- Shared by ListFetch and ListRetain: a slice as Python's, in Redis's
-- inclusive LRANGE/LTRIM terms.

-- ARGV[from], ARGV[from + 1]: the slice's start (inclusive) and end
-- (exclusive), '' when unbounded, negative counting from the end. Returns
-- the first and last positions it selects in a list of `len` values, or nil
-- when it selects none.
local function slice(from, len)
  local function position(index, unbounded)
    if index == '' then
      return unbounded
    end
    local n = tonumber(index)
    if n < 0 then
      return math.max(len + n, 0)
    end
    return math.min(n, len)
  end
  local first = position(ARGV[from], 0)
  local stop = position(ARGV[from + 1], len)
  if first >= stop then
    return nil
  end
  return first, stop - 1
end
