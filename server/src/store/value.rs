//! What an item holds: a scalar value or one of the collections, and the
//! one interface ([`Collection`]) through which the store reads, writes and
//! charges every collection type.
//!
//! Each collection type lives in its own file (`dictionary.rs`, `set.rs`,
//! `list.rs`, `sorted_set.rs`, `leaderboard.rs`) with its operations; the store only knows
//! this enum and the trait, so a type is added without touching the shards.

use bytes::Bytes;

use super::cost::part_cost;
use super::dictionary::Dictionary;
use super::leaderboard::Leaderboard;
use super::list::ListValue;
use super::set::SetValue;
use super::sorted_set::SortedSetValue;
use crate::backend::ItemType;

/// A scalar, or a boxed collection: the box keeps an entry as small as a
/// scalar needs (the `Bytes` niche leaves room for the one other variant),
/// which is what every scalar item is charged for.
pub enum Value {
    Scalar(Bytes),
    Collection(Box<Collections>),
}

pub enum Collections {
    Dictionary(Dictionary),
    Set(SetValue),
    List(ListValue),
    SortedSet(SortedSetValue),
    Leaderboard(Leaderboard),
}

impl Value {
    pub fn item_type(&self) -> ItemType {
        match self {
            Value::Scalar(_) => ItemType::Scalar,
            Value::Collection(c) => match **c {
                Collections::Dictionary(_) => ItemType::Dictionary,
                Collections::Set(_) => ItemType::Set,
                Collections::List(_) => ItemType::List,
                Collections::SortedSet(_) => ItemType::SortedSet,
                Collections::Leaderboard(_) => ItemType::Leaderboard,
            },
        }
    }

    /// Accounted bytes of the value (not its key or the item's overhead).
    pub fn cost(&self) -> u64 {
        match self {
            Value::Scalar(bytes) => part_cost(bytes.len()),
            Value::Collection(c) => {
                part_cost(std::mem::size_of::<Collections>())
                    + match &**c {
                        Collections::Dictionary(c) => c.cost(),
                        Collections::Set(c) => c.cost(),
                        Collections::List(c) => c.cost(),
                        Collections::SortedSet(c) => c.cost(),
                        Collections::Leaderboard(c) => c.cost(),
                    }
            }
        }
    }

    /// The scalar value, or the wrong-type error for a scalar call.
    pub fn scalar(&self) -> Result<&Bytes, crate::error::Error> {
        match self {
            Value::Scalar(bytes) => Ok(bytes),
            other => Err(ItemType::Scalar.mismatch(other.item_type())),
        }
    }
}

/// One collection type, as the store handles it.
pub trait Collection: Default + Sized + Send {
    /// What ItemGetType answers for it, and wrong-type errors name.
    const TYPE: ItemType;
    fn of(value: &Value) -> Option<&Self>;
    fn of_mut(value: &mut Value) -> Option<&mut Self>;
    fn into_value(self) -> Value;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Accounted bytes: every element's parts at allocator size class
    /// ([`part_cost`]) with their `SHARED_HEADER`s, plus the structure
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

            fn of(value: &$crate::store::value::Value) -> Option<&Self> {
                use $crate::store::value::{Collections, Value};
                match value {
                    Value::Collection(c) => match &**c {
                        Collections::$variant(c) => Some(c),
                        _ => None,
                    },
                    Value::Scalar(_) => None,
                }
            }

            fn of_mut(value: &mut $crate::store::value::Value) -> Option<&mut Self> {
                use $crate::store::value::{Collections, Value};
                match value {
                    Value::Collection(c) => match &mut **c {
                        Collections::$variant(c) => Some(c),
                        _ => None,
                    },
                    Value::Scalar(_) => None,
                }
            }

            fn into_value(self) -> $crate::store::value::Value {
                use $crate::store::value::{Collections, Value};
                Value::Collection(Box::new(Collections::$variant(self)))
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
