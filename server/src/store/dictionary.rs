//! The dictionary type of the embedded store (placeholder: its operations
//! arrive with its calls).

use super::value::collection;

#[derive(Default)]
pub struct Dictionary {
    len: usize,
    cost: u64,
}

impl Dictionary {
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

collection!(Dictionary, Dictionary);

impl crate::backend::DictionaryStorage for std::sync::Arc<super::Store> {}
