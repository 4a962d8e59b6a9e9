-- script: item_prelude
-- The item's type name ('scalar', 'dictionary', ...), or 2 when absent.
return item_kind() or 2
