-- SetFetch. Returns 2 if the set is missing, else its elements.
if open('set') == 'missing' then
  return 2
end
return within_cap(redis.call('SMEMBERS', KEYS[3]))
