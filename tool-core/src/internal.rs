//! What toolwright's own crates above this one (`toolwright-mcp`) use of the core's
//! internals. Not a stable API: it changes with them.

use crate::Provider;
use crate::SchemaError;
use crate::ToolSpec;
use serde_json::Value;

pub use crate::names::fnv1a_bytes;
pub use crate::schema::lower_output;
pub use toolwright_contracts::__internal::{strip_position, syntax_error};

/// Lowers a tool's raw input schema for `provider` and checks its root.
pub fn lower_input(spec: &ToolSpec, raw: &Value, provider: Provider) -> Result<Value, SchemaError> {
    crate::schema::lower_input(spec, raw, provider.dialect(), provider)
}
