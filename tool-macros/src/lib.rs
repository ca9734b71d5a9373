//! The `#[tool]` attribute macro for toolwright.
//!
//! Use it through the `toolwright` crate (`toolwright::tool`); its documentation
//! describes the attribute keys, the generated code and the compile errors.

mod attr;
mod ctxt;
mod expand;
mod model;

use proc_macro::TokenStream;

/// Turns a struct with named fields into a tool: derives its name, description,
/// schema and flags, and registers it at link time. See the `toolwright` crate docs.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into()).into()
}
