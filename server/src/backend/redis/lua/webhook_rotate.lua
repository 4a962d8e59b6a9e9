-- script
-- RotateWebhookSecret over Redis. KEYS[1]: the webhooks hash, as
-- webhook_put.lua. ARGV: the name, the new secret.
-- Returns 0 if there is no such webhook, else 1.
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then
  return 0
end
local hook = cjson.decode(held)
hook.secret = ARGV[2]
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(hook))
return 1
