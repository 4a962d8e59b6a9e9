-- script: item_prelude collection_prelude
-- SetLength. Returns 2 if the set is missing, else {length}.
if open('set') == 'missing' then
  return 2
end
return {redis.call('SCARD', KEYS[3])}
