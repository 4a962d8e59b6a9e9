-- prelude
-- Signed 64-bit integers as base-10 text, for the increments (Increment and
-- DictionaryIncrement). Their headers name it.
--
-- Lua's numbers are doubles, exact only below 2^53, so a signed 64-bit sum
-- is done by hand: each number is split into a high part (digits above the
-- ninth) and a low part (the last nine digits), both exact as doubles.
local BASE = 1000000000
local MAX_HIGH, MAX_LOW = 9223372036, 854775807 -- i64::MAX = 9223372036854775807

-- The text as (high, low), signed alike, or nil unless it is what Rust's
-- i64 parser accepts: an optional sign, then ASCII digits, within the i64
-- range.
local function parse_integer(text)
  local sign, digits = string.match(text, '^([+-]?)(%d+)$')
  if not digits then
    return nil
  end
  digits = string.gsub(digits, '^0+', '')
  if #digits > 19 then
    return nil
  end
  local negative = sign == '-'
  local high = tonumber(string.sub(digits, 1, -10)) or 0
  local low = tonumber(string.sub(digits, -9)) or 0
  if high > MAX_HIGH or (high == MAX_HIGH and low > MAX_LOW + (negative and 1 or 0)) then
    return nil
  end
  if negative then
    return -high, -low
  end
  return high, low
end

-- The sum of two parsed numbers as base-10 text, or nil if it overflows.
local function add_integers(high, low, add_high, add_low)
  high, low = high + add_high, low + add_low
  -- Carry so that low is within (-BASE, BASE) and has the sign of high.
  if low >= BASE then
    high, low = high + 1, low - BASE
  elseif low <= -BASE then
    high, low = high - 1, low + BASE
  end
  if high > 0 and low < 0 then
    high, low = high - 1, low + BASE
  elseif high < 0 and low > 0 then
    high, low = high + 1, low - BASE
  end
  local negative = high < 0 or low < 0
  high, low = math.abs(high), math.abs(low)
  if high > MAX_HIGH or (high == MAX_HIGH and low > MAX_LOW + (negative and 1 or 0)) then
    return nil
  end
  local text
  if high > 0 then
    text = string.format('%d%09d', high, low)
  else
    text = string.format('%d', low)
  end
  if negative then
    text = '-' .. text
  end
  return text
end
