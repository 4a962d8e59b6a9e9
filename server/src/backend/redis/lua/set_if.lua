-- script: item_prelude
-- ARGV[1]: payload; ARGV[2]: TTL in milliseconds; ARGV[3]: the condition;
-- ARGV[4]: the value (or, for the hash conditions, the hash) the condition
-- compares with, if any. 'always' replaces whatever the key held, as Set does.
-- Returns 1 when stored, 2 when the condition refused.
local condition = ARGV[3]
local kind = item_kind()
if kind ~= nil and kind ~= 'scalar' and condition ~= 'always' then
  return wrong_type('scalar', kind)
end
local raw = current_raw()
local function equal()
  return raw ~= nil and raw == tag .. ARGV[4]
end
-- The value hash (backend::value_hash): SHA-1 in lowercase hex.
local function hash_equal()
  return raw ~= nil and redis.sha1hex(string.sub(raw, #tag + 1)) == ARGV[4]
end
local admitted
if condition == 'always' then
  admitted = true
elseif condition == 'present' then
  admitted = raw ~= nil
elseif condition == 'present_and_not_equal' then
  admitted = raw ~= nil and not equal()
elseif condition == 'absent' then
  admitted = raw == nil
elseif condition == 'equal' then
  admitted = equal()
elseif condition == 'absent_or_equal' then
  admitted = raw == nil or equal()
elseif condition == 'not_equal' then
  admitted = not equal()
elseif condition == 'present_and_hash_equal' then
  admitted = hash_equal()
elseif condition == 'present_and_not_hash_equal' then
  admitted = raw ~= nil and not hash_equal()
elseif condition == 'absent_or_hash_equal' then
  admitted = raw == nil or hash_equal()
elseif condition == 'absent_or_not_hash_equal' then
  admitted = not hash_equal()
else
  return redis.error_reply('unknown condition ' .. condition)
end
if not admitted then
  return 2
end
redis.call('SET', KEYS[2], tag .. ARGV[1], 'PX', ARGV[2])
redis.call('DEL', KEYS[3]) -- a stale collection of an older generation
return 1
