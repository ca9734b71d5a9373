// Shadows the prelude names the expansion must not rely on.
#![allow(dead_code, non_camel_case_types)]

struct Result;
struct Ok;
struct Err;
struct Box;
struct String;
struct Vec;
struct Option;
struct Some;
struct None;
mod core {}
mod std {}
mod serde {}
mod schemars {}
mod inventory {}

/// A tool next to hostile names.
#[toolwright::tool(read_only, aliases = ["h"])]
pub struct Hygienic {
    /// A name.
    pub name: ::std::string::String,
    /// Optional.
    pub count: ::core::option::Option<u32>,
}

/// A unit tool next to hostile names.
#[toolwright::tool]
pub struct UnitHygienic;

impl toolwright::Tool for Hygienic {
    type Output = ::std::string::String;
    async fn call(self, _cx: &toolwright::ToolContext) -> ::core::result::Result<::std::string::String, toolwright::ToolError> {
        ::core::result::Result::Ok(self.name)
    }
}

impl toolwright::Tool for UnitHygienic {
    type Output = ::std::string::String;
    async fn call(self, _cx: &toolwright::ToolContext) -> ::core::result::Result<::std::string::String, toolwright::ToolError> {
        ::core::result::Result::Ok(::std::string::String::new())
    }
}

fn main() {}
