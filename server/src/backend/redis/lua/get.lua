-- script: read_prelude item_prelude
-- The raw value ("<generation>:<payload>", the caller strips the tag), or nil.
-- A value over the cap is announced without being read: copying megabytes
-- into Lua only to answer their size, for hundreds of Gets at once, kept
-- Redis (one thread) from serving anything else for seconds.
local size = redis.call('STRLEN', KEYS[2])
if size > answer_cap and redis.call('GETRANGE', KEYS[2], 0, #tag - 1) == tag then
  return redis.status_reply('SIZE ' .. size)
end
local kind, raw = item_kind()
if kind == nil then
  return false
end
if kind ~= 'scalar' then
  return wrong_type('scalar', kind)
end
return within_cap(raw)
