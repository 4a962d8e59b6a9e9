//! The set type of the embedded store (placeholder: its operations
//! arrive with its calls).

use super::value::collection;

#[derive(Default)]
pub struct SetValue {
    len: usize,
    cost: u64,
}

impl SetValue {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn cost(&self) -> u64 {
        self.cost
    }
}

collection!(SetValue, Set);

impl crate::backend::SetStorage for std::sync::Arc<super::Store> {}
