-- ARGV[1]: payload; ARGV[2]: TTL in milliseconds.
redis.call('SET', KEYS[2], tag .. ARGV[1], 'PX', ARGV[2])
return 1
