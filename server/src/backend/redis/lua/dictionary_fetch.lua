-- DictionaryFetch. Returns 2 if the dictionary is missing, else field,
-- value, field, value, ... (in Redis's order; the front-end sorts them).
if open('dictionary') == 'missing' then
  return 2
end
return within_cap(redis.call('HGETALL', KEYS[3]))
