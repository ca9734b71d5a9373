//! The boxed future the object-safe traits return (tools, permission checks,
//! hooks): one definition every layer can use without importing the others.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future, as object-safe traits return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
