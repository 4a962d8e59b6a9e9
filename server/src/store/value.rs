//! What an item holds: a scalar value or one of the collections, and the
//! one interface ([`Collection`]) through which the store reads, writes and
//! charges every collection type.
//!
//! Each collection type lives in its own file (`dictionary.rs`, `set.rs`,
//! `list.rs`, `sorted_set.rs`) with its operations; the store only knows
//! this enum and the trait, so a type is added without touching the shards.

use bytes::Bytes;

use super::dictionary::Dictionary;
use super::list::ListValue;
use super::set::SetValue;
use super::shard::allocation_size;
use super::sorted_set::SortedSetValue;
use crate::backend::ItemType;

/// The header `bytes` allocates (24 bytes, the 32-byte class) the first
/// time a stored value is cloned out by a read, and keeps for as long as the
/// value lives. Charged with every element part a read can hand out, from
/// the start: after one fetch every element has one.
pub const SHARED_HEADER: u64 = 32;

/// Bytes charged per element, on top of its parts ([`part_cost`]) and
/// their [`SHARED_HEADER`]s, by the types whose structure is not charged by
/// its capacity (lists and sets are: see `list.rs`, `set.rs`). Set from
/// what `tests/memory_per_element.rs` measures: resident bytes per 32-byte
/// element, across collections of 96 to 3,500 elements, fetched once.
///
/// - a dictionary entry: a `HashMap<Bytes, Bytes>` slot (64 bytes and a
///   control byte) at a load of 7/16 to 7/8; 246 bytes measured per entry
///   of two 32-byte parts, 118 beyond the parts and headers: 128;
/// - a sorted-set element: a `HashMap<Bytes, f64>` slot (40 bytes and a
///   control byte) and a B-tree key (48 bytes, nodes two-thirds full, and
///   a second handle on the value, which allocates its header at once);
///   235 bytes measured, 171 beyond the part and header: 176.
pub const DICTIONARY_ENTRY_OVERHEAD: u64 = 128;
pub const SORTED_SET_ELEMENT_OVERHEAD: u64 = 176;

/// What `len` bytes of one element part are charged.
pub fn part_cost(len: usize) -> u64 {
    allocation_size(len) as u64
}

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
    /// ([`part_cost`]) with their [`SHARED_HEADER`]s, plus the structure
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
pub(crate) use collection;
