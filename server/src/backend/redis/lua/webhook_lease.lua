-- script
-- The lease by which one front-end delivers a webhook, and its position
-- (`webhooks/shared.rs`). KEYS: the webhooks hash, the positions hash and
-- the webhook's lease, as webhook_put.lua. ARGV: 'take', 'renew' or
-- 'release'; the name; the definition's id; the holder's token; the
-- lease's time to live in milliseconds; for renew and release, the page
-- and next number delivery has reached.
--
-- Returns {'gone'} if the webhook was deleted or replaced (a lease the
-- token held ends); {'busy'} (take) if another token holds it; {'lost'}
-- (renew, release) if the token no longer does; {'held', page, seq,
-- takeover} for a take, where takeover is 1 if the last holder did not
-- release it; {'held'} otherwise.
local op, name, id, token = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local held = redis.call('HGET', KEYS[1], name)
if not held or cjson.decode(held).id ~= id then
  if redis.call('GET', KEYS[3]) == token then
    redis.call('DEL', KEYS[3])
  end
  return { 'gone' }
end
if op == 'take' then
  if not redis.call('SET', KEYS[3], token, 'NX', 'PX', ARGV[5]) then
    return { 'busy' }
  end
  local fields = {}
  for field in string.gmatch(redis.call('HGET', KEYS[2], name) or '', '%S+') do
    fields[#fields + 1] = field
  end
  if fields[1] ~= id or #fields ~= 4 then
    fields = { id, '0', '0', '-' }
  end
  redis.call('HSET', KEYS[2], name, id .. ' ' .. fields[2] .. ' ' .. fields[3] .. ' ' .. token)
  return { 'held', fields[2], fields[3], fields[4] ~= '-' and 1 or 0 }
end
if redis.call('GET', KEYS[3]) ~= token then
  return { 'lost' }
end
local holder = token
if op == 'renew' then
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
else
  redis.call('DEL', KEYS[3])
  holder = '-'
end
redis.call('HSET', KEYS[2], name, id .. ' ' .. ARGV[6] .. ' ' .. ARGV[7] .. ' ' .. holder)
return { 'held' }
