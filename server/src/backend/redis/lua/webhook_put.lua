-- script
-- PutWebhook over Redis (`backend/redis/webhooks.rs`). KEYS[1]: the
-- cache's bucket 0 generation key; KEYS[2]: the cache's webhooks, a hash
-- of name -> JSON {topic, url, secret, id}; KEYS[3]: their delivery
-- positions, a hash of name -> "<id> <page> <seq> <holder>"; KEYS[4]: the
-- webhook's lease. All under the tag of the cache's bucket 0.
-- ARGV: name, topic, url, a fresh secret, a fresh id, the most webhooks a
-- cache may have, and the topic's page and next number (where delivery
-- starts).
--
-- Returns 0 if the cache does not exist, -1 if it has the most webhooks
-- already, else {secret, id}: a webhook put again with the same topic and
-- URL is left as it is; with others it keeps its secret, takes the fresh
-- id and starts delivering from the topic's next message (its lease ends).
local generation = redis.call('GET', KEYS[1])
if not generation or string.byte(generation, 1) == 45 then -- 45 is '-'
  return 0
end
local name, topic, url = ARGV[1], ARGV[2], ARGV[3]
local secret = ARGV[4]
local held = redis.call('HGET', KEYS[2], name)
if held then
  local hook = cjson.decode(held)
  if hook.topic == topic and hook.url == url then
    return { hook.secret, hook.id }
  end
  secret = hook.secret
elseif redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[6]) then
  return -1
end
local id = ARGV[5]
redis.call('HSET', KEYS[2], name, cjson.encode({ topic = topic, url = url, secret = secret, id = id }))
redis.call('HSET', KEYS[3], name, id .. ' ' .. ARGV[7] .. ' ' .. ARGV[8] .. ' -')
redis.call('DEL', KEYS[4])
return { secret, id }
