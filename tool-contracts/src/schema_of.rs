//! Schemas from Rust types, with schemars (draft 2020-12, the deserialisation
//! contract): what a tool's input and output are, before any provider sees them.

use crate::output::IntoToolOutput;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Value, json};

/// The generator every schema comes from: draft 2020-12, deserialisation contract,
/// no `$schema`.
fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12().for_deserialize().with(|s| s.meta_schema = None).into_generator()
}

/// The raw input schema of a tool struct.
pub fn input_schema_of<T: JsonSchema>() -> Value {
    generator().into_root_schema_for::<T>().to_value()
}

/// The raw output schema of a tool's output type, if it declares one.
pub fn output_schema_of<O: IntoToolOutput>() -> Option<Value> {
    O::output_schema(&mut generator())
}

/// The schema of a tool that takes no parameters: an empty, closed object.
pub fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}
