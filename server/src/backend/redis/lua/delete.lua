-- script: item_prelude
-- An item of an older generation is garbage either way.
redis.call('DEL', KEYS[2], KEYS[3])
return 1
