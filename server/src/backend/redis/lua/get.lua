-- The raw value ("<generation>:<payload>", the caller strips the tag), or nil.
return current_raw() or false
