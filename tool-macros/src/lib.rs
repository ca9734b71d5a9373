//! The `#[tool]` attribute macro for toolwright.
//!
//! Use it through the `toolwright` crate (`toolwright::tool`); its documentation
//! describes the attribute keys, the generated code and the compile errors.

mod attr;
mod check;
mod ctxt;
mod expand;
mod input;
mod model;

use proc_macro::TokenStream;

/// Turns a struct with named fields into a tool: derives its name, description,
/// schema and flags, and registers it at link time. The struct is the tool's input,
/// its doc comment the description, each field's doc comment its parameter's.
///
/// ```text
/// /// Search the code for a pattern.
/// #[tool(read_only, concurrency_safe, rule_name = "Grep", timeout_secs = 30)]
/// pub struct Search {
///     /// The regular expression.
///     #[schemars(length(min = 1, max = 200))]
///     pub pattern: String,
///     /// Where to look, relative to the workspace.
///     #[access(search)]
///     pub path: Option<String>,
/// }
/// ```
///
/// Every key (flags take no value; the rest `key = value`):
///
/// | key | what it does | example |
/// |---|---|---|
/// | `name` | the name the model calls (default: the struct's name in snake_case) | `#[tool(name = "web_search")]` |
/// | `description` | what the model reads (default: the doc comment, paragraphs kept) | `#[tool(description = "Search the web.")]` |
/// | `title` | a human title (MCP `title`) | `#[tool(title = "Search the web")]` |
/// | `icons` | icons an MCP client may show (MCP `icons`): `https` URLs or `data:image/...;base64,` URIs | `#[tool(icons = ["https://example.com/search.svg"])]` |
/// | `aliases` | more names that route to the same handler, hidden from the model | `#[tool(aliases = ["search", "Grep"])]` |
/// | `advertised_aliases` | more names the model is shown too, each as a tool of its own (for a model trained on an old name) | `#[tool(advertised_aliases = ["find_in_files"])]` |
/// | `read_only` | the call changes nothing (a scheduling fact; permission still applies) | `#[tool(read_only)]` |
/// | `concurrency_safe` | may run at the same time as other safe calls | `#[tool(read_only, concurrency_safe)]` |
/// | `destructive` | may make irreversible changes (not with `read_only`) | `#[tool(destructive)]` |
/// | `idempotent` | a repeated call has no further effect | `#[tool(idempotent)]` |
/// | `open_world` | reaches outside systems (the web, services) | `#[tool(open_world)]` |
/// | `pure` | touches nothing outside the process, so needs no permission | `#[tool(pure)]` |
/// | `rule_name` | the name rules and hook matchers also know it by | `#[tool(rule_name = "Read")]` |
/// | `defer` | always deferred: found through `tool_search` instead of sent up front | `#[tool(defer)]` |
/// | `timeout_secs` | how long one call may run (default: the executor's, 5 minutes) | `#[tool(timeout_secs = 30)]` |
/// | `max_output_bytes` | how much output reaches the model, in bytes | `#[tool(max_output_bytes = 65536)]` |
/// | `max_output_tokens` | the same in estimated tokens (not with `max_output_bytes`) | `#[tool(max_output_tokens = 8000)]` |
/// | `partial_input` | the tool sees its input while the model streams it | `#[tool(partial_input)]` |
/// | `crate` | where toolwright is, when renamed or used through `toolwright_core` | `#[tool(crate = toolwright_core)]` |
///
/// On fields: `#[access(read | write | search | fetch | command)]` states what the
/// field names (a path read or written, a directory searched, a URL fetched, a command
/// run), so the permission rules can decide on it; `#[schemars(range(min = 1, max =
/// 10))]`, `#[schemars(length(min = 1, max = 80))]`, `#[schemars(regex(pattern =
/// r"^[a-z]+$"))]` and `#[schemars(email)]` / `url` are constraints the model is shown
/// and every call is checked against; serde attributes (`rename`, `default`, `flatten`,
/// ...) work as usual. A nested type takes `#[toolwright::input]`.
///
/// Mistakes are compile errors on their span, all reported together. An unknown
/// `serde` or `schemars` key is one error naming the nearest known key (the derives
/// are left out, so nothing else fails for it). A field whose type is not an input
/// type gets, first, an error on the field naming `#[toolwright::input]`; serde's
/// and schemars' own errors for the same type follow it (rustc checks their derived
/// code on its own). The `toolwright` crate's documentation shows a tool end to end.
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
