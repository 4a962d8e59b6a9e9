-- script: item_prelude
-- {milliseconds left} when present, 2 when absent.
if item_kind() then
  return { redis.call('PTTL', KEYS[2]) }
end
return 2
