-- script: item_prelude collection_prelude
-- SortedSetLengthByScore. ARGV[1], ARGV[2]: the min and max as ZCOUNT
-- takes them ('-inf', '(1.5e0', ...).
-- Returns 2 if the set is missing, else {count}.
if open('sorted_set') == 'missing' then
  return 2
end
return {redis.call('ZCOUNT', KEYS[3], ARGV[1], ARGV[2])}
