-- script: item_prelude collection_prelude
-- SortedSetLength. Returns 2 if the set is missing, else {length}.
if open('sorted_set') == 'missing' then
  return 2
end
return {redis.call('ZCARD', KEYS[3])}
