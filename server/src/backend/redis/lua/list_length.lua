-- script: item_prelude collection_prelude
-- ListLength. Returns 2 if the list is missing, else {length}.
if open('list') == 'missing' then
  return 2
end
return {redis.call('LLEN', KEYS[3])}
