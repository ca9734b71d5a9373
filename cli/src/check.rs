//! `toolwright check`: the registry validated for every provider, with the size of
//! each tool's definition.

use std::fmt::Write;
use toolwright::{Provider, Registry};

/// Rough tokens for JSON text (the one estimate budgets use too).
fn tokens(bytes: usize) -> usize {
    bytes.div_ceil(toolwright::deferred::BYTES_PER_TOKEN)
}

/// The report, and whether everything passed.
pub fn report(registry: &Registry) -> (String, bool) {
    let mut out = String::new();
    let mut ok = true;
    let columns = [
        ("anthropic", Provider::ANTHROPIC),
        ("anthropic strict", Provider::Anthropic { strict: true, cache_control: false }),
        ("openai strict", Provider::OpenAiChat { strict: true }),
        ("responses strict", Provider::OpenAiResponses { strict: true }),
        ("gemini", Provider::Gemini),
        ("gemini json", Provider::GeminiJsonSchema),
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
            p if p.is_gemini() => value[0]["functionDeclarations"].as_array().cloned().unwrap_or_default(),
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
        let _ = writeln!(
            out,
            "every provider renders: Anthropic and OpenAI chat and responses (strict and not), Gemini (both forms), MCP"
        );
    }
    // Anthropic takes `strict` on so many tools per request; say how many got it.
    if let Ok(defs) = registry.definitions(Provider::Anthropic { strict: true, cache_control: false }) {
        let list = defs.to_value();
        let all = list.as_array().map_or(0, Vec::len);
        let strict = list.as_array().into_iter().flatten().filter(|t| t["strict"] == true).count();
        if strict < all {
            let _ = writeln!(
                out,
                "anthropic strict: {strict} of {all} tools marked strict, in order (Anthropic allows 20 strict tools, \
                 24 optional and 16 union parameters over them per request); the others keep the strict schema:"
            );
            for (tool, why) in toolwright::schema::anthropic_strict_losses(&list) {
                let _ = writeln!(out, "  {tool}: not strict: {why}");
            }
        }
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
    deferral(registry, &columns, &mut out);
    (out, ok)
}

/// What a session with the default deferral sends and holds back, per provider.
fn deferral(registry: &Registry, columns: &[(&str, Provider)], out: &mut String) {
    use toolwright::deferred::{Deferral, ToolSession};
    let session = ToolSession::new(Deferral::default());
    if session.install(registry).is_err() {
        return;
    }
    let budget = session.deferral().budget.tokens();
    let _ = writeln!(out, "\ndeferral (default budget ~{budget} tokens; `#[tool(defer)]`, `deferTools`):");
    for (label, provider) in columns {
        let mut extensions = toolwright::Extensions::new();
        extensions.insert(session.clone());
        let turn = toolwright::TurnContext::new(".").with_extensions(extensions).with_provider(*provider);
        let pool = registry.pool(&turn, &toolwright::Profile::main_agent(), &[]);
        match pool.token_report(*provider) {
            Ok((sent, held)) => {
                let _ = writeln!(
                    out,
                    "  {label:<16}  loaded {} tools ~{sent} tokens, deferred {} tools ~{held} tokens",
                    pool.len(),
                    pool.deferred_len()
                );
            }
            Err(e) => {
                let _ = writeln!(out, "  {label:<16}  FAIL {e}");
            }
        }
    }
}
