//! `toolwright check`: the registry validated for every provider, with the size of
//! each tool's definition.

use std::fmt::Write;
use toolwright::{Provider, Registry};

/// Rough tokens for JSON text: about 4 bytes a token for English and JSON.
fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(4)
}

/// The report, and whether everything passed.
pub fn report(registry: &Registry) -> (String, bool) {
    let mut out = String::new();
    let mut ok = true;
    let columns = [
        ("anthropic", Provider::ANTHROPIC),
        ("openai strict", Provider::OpenAiChat { strict: true }),
        ("responses strict", Provider::OpenAiResponses { strict: true }),
        ("gemini", Provider::Gemini),
        ("mcp", Provider::Mcp),
    ];
    let names = registry.names();
    let _ = writeln!(out, "{} tools, names unique (aliases included)", names.len());
    // Per provider: render, and the size of each tool's definition.
    let mut sizes: Vec<Vec<Option<usize>>> = vec![vec![None; columns.len()]; names.len()];
    let mut totals = vec![None; columns.len()];
    for provider in Provider::ALL {
        if let Err(e) = registry.definitions(provider) {
            ok = false;
            let _ = writeln!(out, "FAIL {provider}: {e}");
        }
    }
    for (c, (_, provider)) in columns.iter().enumerate() {
        let Ok(defs) = registry.definitions(*provider) else { continue };
        totals[c] = Some(defs.as_str().len());
        let value = defs.to_value();
        // Gemini wraps the list in one functionDeclarations object.
        let items = match provider {
            Provider::Gemini => value[0]["functionDeclarations"].as_array().cloned().unwrap_or_default(),
            _ => value.as_array().cloned().unwrap_or_default(),
        };
        for item in items {
            let name = item["name"].as_str().or_else(|| item["function"]["name"].as_str()).unwrap_or_default();
            if let Some(row) = names.iter().position(|n| n == name) {
                sizes[row][c] = Some(item.to_string().len());
            }
        }
    }
    if ok {
        let _ =
            writeln!(out, "every provider renders: Anthropic, OpenAI chat and responses (strict and not), Gemini, MCP");
    }
    let width = names.iter().map(String::len).max().unwrap_or(4).max(5);
    let _ = write!(out, "\n{:<width$}", "tool");
    for (label, _) in &columns {
        let _ = write!(out, "  {label:>16}");
    }
    let _ = writeln!(out, "   (bytes of the definition; ~tokens for Anthropic)");
    let cell = |size: Option<usize>| size.map_or_else(|| "-".to_owned(), |s| s.to_string());
    for (row, name) in names.iter().enumerate() {
        let _ = write!(out, "{name:<width$}");
        for size in &sizes[row] {
            let _ = write!(out, "  {:>16}", cell(*size));
        }
        let _ = writeln!(out, "   ~{}", sizes[row][0].map_or(0, tokens));
    }
    let _ = write!(out, "{:<width$}", "whole list");
    for total in &totals {
        let _ = write!(out, "  {:>16}", cell(*total));
    }
    let _ = writeln!(out, "   ~{} tokens", totals[0].map_or(0, tokens));
    (out, ok)
}
