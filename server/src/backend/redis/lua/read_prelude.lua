-- prelude
-- Head of every read script whose answer can be large (named first in
-- their headers). Its last argument is the largest answer the front-end
-- has room for in its in-flight budget (server/src/in_flight.rs): a larger
-- answer is not sent; its size is, as the status reply 'SIZE <bytes>', and
-- the front-end charges that much and asks again. So the bytes an answer
-- occupies in the front-end are counted before they leave Redis.
local answer_cap = tonumber(table.remove(ARGV))
-- The one before it is --max-response-size: a larger answer is refused,
-- as 'TOO_LARGE <bytes>', and never sent or fetched. The count is a lower
-- bound of the encoded answer (the values' bytes alone in `within_cap`;
-- the elements as they encode, the embedded store's count, where a script
-- sizes a collection's answer), so what this refuses the front-end would
-- refuse too.
local max_answer = tonumber(table.remove(ARGV))

-- The reply for an answer of `size` bytes (as counted below) that is not
-- to be sent: TOO_LARGE or SIZE; nil when it may be. With `unnamed` (a
-- part of a list or sorted set, see `range_size`), TOO_LARGE names no size.
local function sized(size, unnamed)
  if size > max_answer then
    if unnamed then
      return redis.status_reply('TOO_LARGE')
    end
    return redis.status_reply('TOO_LARGE ' .. size)
  end
  if size > answer_cap then
    return redis.status_reply('SIZE ' .. size)
  end
  return nil
end

-- The answer (a string, or a table of strings and falses), or its size
-- alone if it is larger than the cap.
local function within_cap(answer)
  local size = 0
  if type(answer) == 'string' then
    size = #answer
  elseif type(answer) == 'table' then
    for i = 1, #answer do
      if type(answer[i]) == 'string' then
        size = size + #answer[i]
      end
    end
  end
  return sized(size) or answer
end
