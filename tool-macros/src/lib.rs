//! The `#[tool]` attribute macro for toolwright.
//!
//! Use it through the `toolwright` crate (`toolwright::tool`); its documentation
//! describes the attribute keys, the generated code and the compile errors.

mod attr;
mod ctxt;
mod expand;
mod input;
mod model;

use proc_macro::TokenStream;

/// Turns a struct with named fields into a tool: derives its name, description,
/// schema and flags, and registers it at link time. See the `toolwright` crate docs.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into()).into()
}

/// Derives `Deserialize` and `JsonSchema` for a type used inside a tool's input (a
/// nested struct, an enum), through toolwright's re-exports: the user's crate needs
/// neither serde nor schemars. Named structs also get `#[serde(deny_unknown_fields)]`
/// unless a field is flattened. The one key is `crate = path`.
#[proc_macro_attribute]
pub fn input(args: TokenStream, item: TokenStream) -> TokenStream {
    input::expand(args.into(), item.into()).into()
}
