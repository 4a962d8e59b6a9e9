//! What an item holds: a scalar value or one of the collections, and the
//! one interface ([`Collection`]) through which the store reads, writes and
//! charges every collection type.
//!
//! Each collection type lives in its own file (`dictionary.rs`, `set.rs`,
//! `list.rs`, `sorted_set.rs`, `leaderboard.rs`) with its operations; the store only knows
//! this enum and the trait, so a type is added without touching the shards.

use super::cost::{allocation_size, part_cost, COPIED_VALUE};
use super::dictionary::Dictionary;
use super::item_bytes::ItemBytes;
use super::leaderboard::Leaderboard;
use super::list::ListValue;
use super::set::SetValue;
use super::sorted_set::SortedSetValue;
use crate::backend::ItemType;
use bytes::Bytes;

/// A new item's contents, as a write hands them to its shard.
pub enum Value {
    /// The key, then the value: the one allocation a scalar item keeps.
    Scalar(ItemBytes),
    /// Boxed while it travels to its shard, which moves it into the
    /// item's allocation beside the key (`ItemBytes::collection`).
    Collection(Box<Collections>),
}

impl Value {
    /// A scalar item's one allocation: `key` then `value`, allocated at
    /// exactly their length ([`ItemBytes`]); or a [`Collections::Scalar`]
    /// for a value over [`COPIED_VALUE`], which reads share rather than
    /// copy, and where the two together would round up to a larger size
    /// class than apart.
    pub fn scalar(key: &[u8], value: &[u8]) -> Value {
        let together = ItemBytes::scalar_allocation(key.len(), value.len());
        let apart = ItemBytes::collection_allocation(key.len()) + allocation_size(value.len());
        if value.len() > COPIED_VALUE || apart < together {
            return Value::Collection(Box::new(Collections::Scalar(Bytes::copy_from_slice(value))));
        }
        Value::Scalar(ItemBytes::scalar(key, value))
    }
}

pub enum Collections {
    /// Not a collection: a scalar value kept apart from its key, because
    /// it is over [`COPIED_VALUE`], or because the two in one allocation
    /// would take a larger size class (a 16,384-byte value and its key:
    /// 20,480 bytes, where the value alone takes 16,384); held here, in the
    /// key's allocation, so an entry keeps one pointer for both. `Bytes`,
    /// so reads of a value over
    /// [`COPIED_VALUE`] share it: copies of large values made per read,
    /// before any answer is counted, would let a few clients that never
    /// read their answers multiply a value in memory
    /// (server/tests/attacks*.rs, zero windows).
    Scalar(Bytes),
    Dictionary(Dictionary),
    Set(SetValue),
    List(ListValue),
    SortedSet(SortedSetValue),
    /// Boxed: its two structures make it the largest variant, and every
    /// collection item's allocation holds a value the size of the largest.
    /// Leaderboards are few and large; small sets, dictionaries and lists
    /// are many.
    Leaderboard(Box<Leaderboard>),
}

impl Collections {
    pub fn item_type(&self) -> ItemType {
        match self {
            Collections::Scalar(_) => ItemType::Scalar,
            Collections::Dictionary(_) => ItemType::Dictionary,
            Collections::Set(_) => ItemType::Set,
            Collections::List(_) => ItemType::List,
            Collections::SortedSet(_) => ItemType::SortedSet,
            Collections::Leaderboard(_) => ItemType::Leaderboard,
        }
    }

    /// Accounted bytes of what the collection holds apart from the item's
    /// own allocation (which holds this value: `ItemBytes::collection`).
    pub fn cost(&self) -> u64 {
        match self {
            Collections::Scalar(value) => part_cost(value.len()),
            Collections::Dictionary(c) => c.cost(),
            Collections::Set(c) => c.cost(),
            Collections::List(c) => c.cost(),
            Collections::SortedSet(c) => c.cost(),
            Collections::Leaderboard(c) => part_cost(std::mem::size_of::<Leaderboard>()) + c.cost(),
        }
    }
}

/// One collection type, as the store handles it.
pub trait Collection: Default + Sized + Send {
    /// What ItemGetType answers for it, and wrong-type errors name.
    const TYPE: ItemType;
    fn of(collection: &Collections) -> Option<&Self>;
    fn of_mut(collection: &mut Collections) -> Option<&mut Self>;
    fn into_value(self) -> Value;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Accounted bytes: every element's parts at allocator size class
    /// ([`part_cost`]), plus the structure
    /// that holds them (its capacity, or a measured overhead per element);
    /// kept up to date by the type's own mutators, so reading it is O(1).
    fn cost(&self) -> u64;
}

/// Implements [`Collection`] for a type held in one [`Value`] variant,
/// given its `len` and `cost` methods.
macro_rules! collection {
    ($ty:ty, $variant:ident) => {
        impl $crate::store::value::Collection for $ty {
            const TYPE: $crate::backend::ItemType = $crate::backend::ItemType::$variant;

            fn of(collection: &$crate::store::value::Collections) -> Option<&Self> {
                match collection {
                    // A boxed variant's box, or the value itself.
                    $crate::store::value::Collections::$variant(c) => {
                        Some(std::borrow::Borrow::borrow(c))
                    }
                    _ => None,
                }
            }

            fn of_mut(collection: &mut $crate::store::value::Collections) -> Option<&mut Self> {
                match collection {
                    $crate::store::value::Collections::$variant(c) => {
                        Some(std::borrow::BorrowMut::borrow_mut(c))
                    }
                    _ => None,
                }
            }

            fn into_value(self) -> $crate::store::value::Value {
                use $crate::store::value::{Collections, Value};
                Value::Collection(Box::new(Collections::$variant(self.into())))
            }

            fn len(&self) -> usize {
                <$ty>::len(self)
            }

            fn cost(&self) -> u64 {
                <$ty>::cost(self)
            }
        }
    };
}

collection!(Dictionary, Dictionary);
collection!(SetValue, Set);
collection!(ListValue, List);
collection!(SortedSetValue, SortedSet);
collection!(Leaderboard, Leaderboard);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every collection item's allocation holds a value the size of the
    /// largest variant: the many small sets, dictionaries, lists and
    /// sorted sets pay for it (with a short key, 80 bytes in all).
    #[test]
    fn a_collections_value_is_small() {
        assert!(std::mem::size_of::<Collections>() <= 56);
    }
}
