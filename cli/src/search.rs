//! `toolwright search <query>`: what a model's `tool_search` would find among the
//! registry's tools, the workspace's MCP servers' and tool lists saved as JSON,
//! with `--explain` to see why each ranked where it did.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolwright::deferred::{SearchDocument, SearchIndex, SearchMatch};

#[derive(clap::Args)]
pub struct SearchArgs {
    /// What the tool should do, in words; a regular expression with --regex.
    query: String,
    /// How many matches to show (1 to 100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    limit: u16,
    /// Read the query as a case-insensitive regular expression over names,
    /// parameters and descriptions.
    #[arg(long, conflicts_with_all = ["explain", "why"])]
    regex: bool,
    /// Say why each match ranked where it did.
    #[arg(long)]
    explain: bool,
    /// Also say why this tool ranked where it did, or why it did not match.
    #[arg(long, value_name = "TOOL")]
    why: Option<String>,
    /// Add the tools of an MCP `tools/list` result saved as JSON (the result, the
    /// whole response, or the bare list), named as mounted ones are,
    /// `mcp__SERVER__tool`; SERVER is the file's stem unless given. Repeatable.
    #[arg(long = "tools", value_name = "[SERVER=]FILE")]
    tools: Vec<String>,
    /// Print JSON lines: one per match.
    #[arg(long)]
    json: bool,
    /// The workspace whose MCP servers are mounted (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    #[cfg(feature = "mcp")]
    #[command(flatten)]
    mcp: super::mounts::McpArgs,
    #[command(flatten)]
    trust: super::turn::TrustArgs,
}

/// Runs the search; the matches on stdout.
pub fn run(args: SearchArgs) -> Result<String, String> {
    if args.query.trim().is_empty() {
        return Err("the query is empty: describe what the tool should do".into());
    }
    let mut documents = Vec::new();
    for spec in &args.tools {
        documents.extend(tool_list(spec)?);
    }
    let registry = Arc::new(crate::registry()?);
    #[cfg(feature = "mcp")]
    let _mounts = {
        let cwd = super::turn::workspace_dir(args.cwd.as_deref())?;
        let trusted = args.trust.load(&cwd)?.trust().is_trusted();
        let warn = |w: &str| say!("toolwright: warning: {w}");
        super::turn::block_on(args.mcp.mount(&cwd, trusted, &registry, &[], None, warn))??
    };
    #[cfg(not(feature = "mcp"))]
    let _ = (&args.cwd, &args.trust);
    let own: Vec<SearchDocument> = registry
        .tools()
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            SearchDocument::new(spec.name.to_string(), spec.description.to_string(), tool.input_schema())
                .with_title(spec.title.as_deref().unwrap_or_default())
        })
        .collect();
    for doc in &documents {
        if own.iter().any(|o| o.name == doc.name) {
            return Err(format!("{}: a tool of that name is already registered", doc.name));
        }
    }
    let index = SearchIndex::new(own.into_iter().chain(documents));
    let query = args.query.trim();
    let limit = usize::from(args.limit);
    let matches = if args.regex {
        index.search_regex(query, limit).map_err(|e| e.to_string())?
    } else {
        index.search(query, limit)
    };
    let mut out = String::new();
    if args.json {
        for m in &matches {
            let why = args.explain.then(|| index.explain(query, &m.name).map(|e| e.to_string())).flatten();
            let score = if m.score.is_finite() { json!(m.score) } else { json!("exact name") };
            let line = json!({"name": m.name, "server": m.server, "score": score, "summary": m.summary, "why": why});
            out.push_str(&format!("{line}\n"));
        }
    } else {
        if matches.is_empty() {
            out.push_str(&format!("No tool among {} matches `{query}`.\n", index.len()));
        }
        for (rank, m) in matches.iter().enumerate() {
            out.push_str(&line(rank + 1, m));
            if args.explain
                && let Some(why) = index.explain(query, &m.name)
            {
                out.push_str(&format!("   why: {why}\n"));
            }
        }
    }
    if let Some(name) = &args.why {
        let why = index
            .explain(query, name)
            .ok_or_else(|| format!("--why {name}: no tool of that name among the {} searched", index.len()))?;
        if args.json {
            out.push_str(&format!("{}\n", json!({"why": name, "rank": why.rank, "explanation": why.to_string()})));
        } else {
            out.push_str(&format!("\n{why}\n"));
        }
    }
    Ok(out)
}

fn line(rank: usize, m: &SearchMatch) -> String {
    let server = m.server.as_deref().map(|s| format!(" (server {s})")).unwrap_or_default();
    let score = if m.score.is_finite() { format!("{:.3}", m.score) } else { "exact name".to_owned() };
    format!("{rank:>2}. {}{server}  {score}\n    {}\n", m.name, m.summary)
}

/// The tools of one `--tools [SERVER=]FILE`.
fn tool_list(spec: &str) -> Result<Vec<SearchDocument>, String> {
    let (server, path) = match spec.split_once('=') {
        Some((server, path)) if !server.is_empty() && !server.contains(['/', '\\']) => {
            (server.to_owned(), Path::new(path))
        }
        _ => {
            let path = Path::new(spec);
            let stem = path.file_stem().and_then(|s| s.to_str()).filter(|s| !s.is_empty());
            let stem = stem.ok_or_else(|| format!("--tools {spec}: give the server's name as SERVER=FILE"))?;
            (stem.to_owned(), path)
        }
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("--tools {}: {e}", path.display()))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| format!("--tools {}: not JSON: {e}", path.display()))?;
    let list = value
        .as_array()
        .or_else(|| value["tools"].as_array())
        .or_else(|| value["result"]["tools"].as_array())
        .ok_or_else(|| {
        format!(
            "--tools {}: no tool list; expected a `tools/list` result (`{{\"tools\": [...]}}`), the JSON-RPC \
                 response holding one, or an array of tools",
            path.display()
        )
    })?;
    list.iter()
        .enumerate()
        .map(|(i, tool)| {
            let name = tool["name"]
                .as_str()
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("--tools {}: tool {i} has no `name` string", path.display()))?;
            let description = match &tool["description"] {
                Value::Null => "",
                Value::String(d) => d,
                _ => return Err(format!("--tools {}: tool `{name}`: `description` is not a string", path.display())),
            };
            let title = tool["title"].as_str().or_else(|| tool["annotations"]["title"].as_str()).unwrap_or_default();
            Ok(SearchDocument::new(
                format!("mcp__{server}__{name}"),
                description.to_owned(),
                tool.get("inputSchema").cloned().unwrap_or_else(|| json!({})),
            )
            .with_title(title))
        })
        .collect()
}
