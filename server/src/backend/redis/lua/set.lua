-- script: item_prelude
-- ARGV[1]: payload; ARGV[2]: TTL in milliseconds. Replaces whatever the key
-- held, a collection included.
redis.call('SET', KEYS[2], tag .. ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[3])
return 1
