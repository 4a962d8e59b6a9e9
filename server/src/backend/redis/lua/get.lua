-- The raw value ("<generation>:<payload>", the caller strips the tag), or nil.
local kind, raw = item_kind()
if kind == nil then
  return false
end
if kind ~= 'scalar' then
  return wrong_type('scalar', kind)
end
return raw
