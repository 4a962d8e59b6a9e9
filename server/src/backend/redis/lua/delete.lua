-- An item of an older generation is garbage either way.
redis.call('DEL', KEYS[2])
return 1
