-- 1 when present, 2 when absent.
if current_raw() then
  return 1
end
return 2
