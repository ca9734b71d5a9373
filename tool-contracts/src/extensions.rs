//! Typed shared state, one value per type, that a turn hands to every call.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::Arc;

/// Typed shared state, one value per type: a todo list, a file-read cache, an HTTP
/// client. Values are shared between calls; put a `Mutex` inside for mutable state.
///
/// A list, not a hash map: a turn holds a handful of values, and a scan of a few
/// `TypeId`s is cheaper than hashing one (the MCP server builds a set per call).
#[derive(Default, Clone)]
pub struct Extensions {
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl Extensions {
    /// An empty set.
    pub fn new() -> Self {
        Extensions::default()
    }

    /// Adds (or replaces) the value of type `T`.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let id = TypeId::of::<T>();
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        match self.values.iter_mut().find(|(held, _)| *held == id) {
            Some(slot) => slot.1 = value,
            None => self.values.push((id, value)),
        }
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.values.iter().find(|(held, _)| *held == id).and_then(|(_, v)| v.downcast_ref::<T>())
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Extensions({} values)", self.values.len())
    }
}
