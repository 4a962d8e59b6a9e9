-- SetPop. ARGV[1]: how many elements to take (at least 1).
-- Returns 2 if the set is missing, else the elements taken, at random (all
-- of them when the set holds no more). The TTL is kept; an emptied set is
-- removed.
local state = open('set')
if state == 'missing' then
  return 2
end
local popped = redis.call('SPOP', KEYS[3], ARGV[1])
close('set', state)
return popped
