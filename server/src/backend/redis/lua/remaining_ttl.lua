-- {milliseconds left} when present, 2 when absent.
if current_raw() then
  return { redis.call('PTTL', KEYS[2]) }
end
return 2
