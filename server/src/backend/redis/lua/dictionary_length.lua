-- script: item_prelude collection_prelude
-- DictionaryLength. Returns 2 if the dictionary is missing, else {length}.
if open('dictionary') == 'missing' then
  return 2
end
return {redis.call('HLEN', KEYS[3])}
