-- script
-- A topic's page, last number, and the messages its stream holds from a
-- number on, in one atomic read. KEYS: as topic_publish.lua; ARGV[1]: the
-- first number wanted.
--
-- Returns 0 if the cache does not exist; else {page, seq, id, message, id,
-- message, ...}, with page '' and seq 0 for a topic not published to in
-- this generation of its cache (its numbering will start on a new page).
local generation = redis.call('GET', KEYS[1])
if not generation or string.byte(generation, 1) == 45 then -- 45 is '-'
  return 0
end
local held = redis.call('HMGET', KEYS[2], 'gen', 'page', 'seq')
if held[1] ~= generation or not held[2] or not held[3] then
  return { '', 0 }
end
local answer = { held[2], tonumber(held[3]) }
for _, entry in ipairs(redis.call('XRANGE', KEYS[3], ARGV[1] .. '-0', '+')) do
  answer[#answer + 1] = entry[1]
  answer[#answer + 1] = entry[2][2]
end
return answer
