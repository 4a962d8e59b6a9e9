-- script
-- DeleteWebhook over Redis. KEYS: the webhooks hash, the positions hash
-- and the webhook's lease, as webhook_put.lua. ARGV[1]: the name.
-- Returns 1.
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
