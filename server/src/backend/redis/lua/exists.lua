-- script: item_prelude
-- 1 when present (scalar or collection), 2 when absent.
if item_kind() then
  return 1
end
return 2
