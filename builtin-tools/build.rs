//! Generates the built-in tool modules, the `DefaultTool` enum and `DEFAULT_TOOL_NAMES`
//! from the `#[tool]` structs in `src/tools/*.rs`, so adding a tool is adding a file.
//!
//! Only the struct names are read here; each tool's name comes from the code `#[tool]`
//! generates (`<T as ToolInfo>::SPEC.name`), so the two can never disagree.

use std::fmt::Write as _;
use std::path::Path;
use std::{env, fs};

fn main() {
    let dir = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("src/tools");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();

    let mut modules = String::new();
    let mut tools: Vec<String> = Vec::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let module = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let source = fs::read_to_string(path).unwrap();
        let file = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // Absolute: a relative `#[path]` in an `include!`d file resolves against OUT_DIR.
        let _ = writeln!(
            modules,
            "#[path = {:?}]\npub mod {module};\npub use self::{module}::*;",
            path.display().to_string()
        );
        for item in file.items {
            if let syn::Item::Struct(s) = item
                && s.attrs.iter().any(|a| a.path().segments.last().is_some_and(|seg| seg.ident == "tool"))
            {
                tools.push(s.ident.to_string());
            }
        }
    }
    tools.sort();

    let mut out = String::new();
    out.push_str("/// Every built-in tool, one variant per `#[tool]` struct (generated).\n");
    out.push_str("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]\npub enum DefaultTool {\n");
    for t in &tools {
        let _ = writeln!(out, "    /// The tool defined by [`tools::{t}`].\n    {t},");
    }
    out.push_str("}\n\nimpl DefaultTool {\n    /// Every variant, in the order of their struct names.\n");
    let _ = writeln!(
        out,
        "    pub const ALL: &'static [DefaultTool] = &[{}];",
        tools.iter().map(|t| format!("DefaultTool::{t}")).collect::<Vec<_>>().join(", ")
    );
    out.push_str("\n    /// The name the model calls this tool by.\n    pub const fn as_str(self) -> &'static str {\n        let spec = match self {\n");
    for t in &tools {
        let _ = writeln!(out, "            DefaultTool::{t} => <tools::{t} as ::toolwright_core::ToolInfo>::SPEC,");
    }
    out.push_str("        };\n        match &spec.name {\n            ::std::borrow::Cow::Borrowed(name) => name,\n            ::std::borrow::Cow::Owned(_) => unreachable!(),\n        }\n    }\n}\n\n");
    out.push_str("/// The names of every built-in tool, in the order of [`DefaultTool::ALL`] (generated).\n");
    let _ = writeln!(
        out,
        "pub const DEFAULT_TOOL_NAMES: &[&str] = &[{}];",
        tools.iter().map(|t| format!("DefaultTool::{t}.as_str()")).collect::<Vec<_>>().join(", ")
    );

    out.push_str("\n/// Registers every built-in tool explicitly, for links where `inventory` finds\n/// nothing (generated).\npub fn register_all(builder: ::toolwright_core::RegistryBuilder) -> ::toolwright_core::RegistryBuilder {\n    builder");
    for t in &tools {
        let _ = write!(out, "\n        .register::<tools::{t}>()");
    }
    out.push_str("\n}\n");

    let out_dir = env::var("OUT_DIR").unwrap();
    fs::write(Path::new(&out_dir).join("tool_modules.rs"), modules).unwrap();
    fs::write(Path::new(&out_dir).join("default_tool.rs"), out).unwrap();
}
