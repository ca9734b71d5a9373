//! The tool search's ranking on real MCP servers' tool lists (the reference servers
//! and GitHub's, as they describe their tools), among 1,000 tools with distractors
//! of the same shapes, through the public `SearchIndex` API: a task phrase in the
//! words a user would use, and the tool a model should find.

#![allow(missing_docs)]

// The tests name the facade's paths; here the core is that crate.
extern crate toolwright_core as toolwright;

use serde_json::{Value, json};
use toolwright::deferred::{SearchDocument, SearchIndex};

/// `(server, tool, description, parameters)`.
const REAL: &[(&str, &str, &str, &[&str])] = &[
    (
        "github",
        "create_issue",
        "Create a new issue in a GitHub repository",
        &["owner", "repo", "title", "body", "labels", "assignees"],
    ),
    (
        "github",
        "list_issues",
        "List issues in a GitHub repository with filtering options",
        &["owner", "repo", "state", "labels", "sort"],
    ),
    (
        "github",
        "get_issue",
        "Get details of a specific issue in a GitHub repository",
        &["owner", "repo", "issue_number"],
    ),
    ("github", "add_issue_comment", "Add a comment to an existing issue", &["owner", "repo", "issue_number", "body"]),
    (
        "github",
        "update_issue",
        "Update an existing issue in a GitHub repository",
        &["owner", "repo", "issue_number", "title", "state"],
    ),
    (
        "github",
        "create_pull_request",
        "Create a new pull request in a GitHub repository",
        &["owner", "repo", "title", "head", "base"],
    ),
    ("github", "merge_pull_request", "Merge a pull request", &["owner", "repo", "pull_number", "merge_method"]),
    (
        "github",
        "get_pull_request_files",
        "Get the list of files changed in a pull request",
        &["owner", "repo", "pull_number"],
    ),
    (
        "github",
        "create_pull_request_review",
        "Create a review on a pull request",
        &["owner", "repo", "pull_number", "event", "body"],
    ),
    ("github", "search_code", "Search for code across GitHub repositories", &["q", "page"]),
    ("github", "search_repositories", "Search for GitHub repositories", &["query", "page"]),
    (
        "github",
        "create_repository",
        "Create a new GitHub repository in your account",
        &["name", "description", "private"],
    ),
    (
        "github",
        "fork_repository",
        "Fork a GitHub repository to your account or specified organization",
        &["owner", "repo", "organization"],
    ),
    (
        "github",
        "create_branch",
        "Create a new branch in a GitHub repository",
        &["owner", "repo", "branch", "from_branch"],
    ),
    ("github", "list_commits", "Get list of commits of a branch in a GitHub repository", &["owner", "repo", "sha"]),
    (
        "github",
        "get_file_contents",
        "Get the contents of a file or directory from a GitHub repository",
        &["owner", "repo", "path", "branch"],
    ),
    (
        "github",
        "push_files",
        "Push multiple files to a GitHub repository in a single commit",
        &["owner", "repo", "branch", "files", "message"],
    ),
    (
        "filesystem",
        "read_text_file",
        "Read the complete contents of a file from the file system as text",
        &["path", "head", "tail"],
    ),
    (
        "filesystem",
        "write_file",
        "Create a new file or completely overwrite an existing file with new content",
        &["path", "content"],
    ),
    (
        "filesystem",
        "edit_file",
        "Make line-based edits to a text file, replacing exact line sequences",
        &["path", "edits", "dryRun"],
    ),
    ("filesystem", "create_directory", "Create a new directory or ensure a directory exists", &["path"]),
    (
        "filesystem",
        "list_directory",
        "Get a detailed listing of all files and directories in a specified path",
        &["path"],
    ),
    ("filesystem", "move_file", "Move or rename files and directories", &["source", "destination"]),
    (
        "filesystem",
        "search_files",
        "Recursively search for files and directories matching a pattern",
        &["path", "pattern", "excludePatterns"],
    ),
    (
        "filesystem",
        "get_file_info",
        "Retrieve detailed metadata about a file or directory: size, creation time, permissions",
        &["path"],
    ),
    ("slack", "slack_list_channels", "List public channels in the workspace with pagination", &["limit", "cursor"]),
    ("slack", "slack_post_message", "Post a new message to a Slack channel", &["channel_id", "text"]),
    (
        "slack",
        "slack_reply_to_thread",
        "Reply to a specific message thread in Slack",
        &["channel_id", "thread_ts", "text"],
    ),
    ("slack", "slack_add_reaction", "Add a reaction emoji to a message", &["channel_id", "timestamp", "reaction"]),
    ("slack", "slack_get_channel_history", "Get recent messages from a channel", &["channel_id", "limit"]),
    (
        "slack",
        "slack_get_users",
        "Get a list of all users in the workspace with their basic profile information",
        &["cursor", "limit"],
    ),
    ("puppeteer", "puppeteer_navigate", "Navigate to a URL", &["url"]),
    (
        "puppeteer",
        "puppeteer_screenshot",
        "Take a screenshot of the current page or a specific element",
        &["name", "selector", "width"],
    ),
    ("puppeteer", "puppeteer_click", "Click an element on the page", &["selector"]),
    ("puppeteer", "puppeteer_fill", "Fill out an input field", &["selector", "value"]),
    ("puppeteer", "puppeteer_evaluate", "Execute JavaScript in the browser console", &["script"]),
    ("memory", "create_entities", "Create multiple new entities in the knowledge graph", &["entities"]),
    (
        "memory",
        "create_relations",
        "Create multiple new relations between entities in the knowledge graph",
        &["relations"],
    ),
    (
        "memory",
        "add_observations",
        "Add new observations to existing entities in the knowledge graph",
        &["observations"],
    ),
    ("memory", "search_nodes", "Search for nodes in the knowledge graph based on a query", &["query"]),
    ("memory", "read_graph", "Read the entire knowledge graph", &[]),
    ("postgres", "query", "Run a read-only SQL query", &["sql"]),
    (
        "brave",
        "brave_web_search",
        "Performs a web search using the Brave Search API, for general queries, news, articles",
        &["query", "count"],
    ),
    (
        "brave",
        "brave_local_search",
        "Searches for local businesses and places using Brave's Local Search API",
        &["query", "count"],
    ),
    ("maps", "maps_geocode", "Convert an address into geographic coordinates", &["address"]),
    ("maps", "maps_directions", "Get directions between two points", &["origin", "destination", "mode"]),
    (
        "maps",
        "maps_distance_matrix",
        "Calculate travel distance and time for multiple origins and destinations",
        &["origins", "destinations"],
    ),
    ("git", "git_status", "Shows the working tree status", &["repo_path"]),
    ("git", "git_diff_unstaged", "Shows changes in the working directory that are not yet staged", &["repo_path"]),
    ("git", "git_commit", "Records changes to the repository", &["repo_path", "message"]),
    ("git", "git_log", "Shows the commit logs", &["repo_path", "max_count"]),
    ("git", "git_checkout", "Switches branches", &["repo_path", "branch_name"]),
    ("time", "get_current_time", "Get current time in a specific timezone", &["timezone"]),
    ("time", "convert_time", "Convert time between timezones", &["source_timezone", "time", "target_timezone"]),
    (
        "fetch",
        "fetch",
        "Fetches a URL from the internet and optionally extracts its contents as markdown",
        &["url", "max_length"],
    ),
    ("everything", "get-sum", "Returns the sum of two numbers", &["a", "b"]),
];

/// A task phrase and the tool it should find.
const QUERIES: &[(&str, &str)] = &[
    ("open a bug report in my repo", "github__create_issue"),
    ("show the open issues of the repository", "github__list_issues"),
    ("leave a comment on issue 42", "github__add_issue_comment"),
    ("close issue 7", "github__update_issue"),
    ("open a PR from my feature branch", "github__create_pull_request"),
    ("merge the pull request", "github__merge_pull_request"),
    ("which files did this PR change", "github__get_pull_request_files"),
    ("approve the pull request with a review", "github__create_pull_request_review"),
    ("find code that calls parse_config across github", "github__search_code"),
    ("fork the upstream repository", "github__fork_repository"),
    ("make a new branch off main", "github__create_branch"),
    ("recent commits on the branch", "github__list_commits"),
    ("read README.md from the github repo", "github__get_file_contents"),
    ("read the contents of a local file", "filesystem__read_text_file"),
    ("overwrite config.toml with new content", "filesystem__write_file"),
    ("make a folder called build", "filesystem__create_directory"),
    ("what files are in this directory", "filesystem__list_directory"),
    ("rename a file", "filesystem__move_file"),
    ("how big is this file and when was it created", "filesystem__get_file_info"),
    ("send a message to the #general slack channel", "slack__slack_post_message"),
    ("reply in the slack thread", "slack__slack_reply_to_thread"),
    ("react with a thumbs up emoji to that message", "slack__slack_add_reaction"),
    ("what was said recently in the channel", "slack__slack_get_channel_history"),
    ("go to https://example.com in the browser", "puppeteer__puppeteer_navigate"),
    ("take a screenshot of the page", "puppeteer__puppeteer_screenshot"),
    ("click the submit button", "puppeteer__puppeteer_click"),
    ("type my email into the login form field", "puppeteer__puppeteer_fill"),
    ("run javascript in the browser", "puppeteer__puppeteer_evaluate"),
    ("remember that Alice works at Acme as a new entity", "memory__create_entities"),
    ("link two entities in the knowledge graph", "memory__create_relations"),
    ("run a SQL select on the database", "postgres__query"),
    ("search the web for rust async news", "brave__brave_web_search"),
    ("find coffee shops near me", "brave__brave_local_search"),
    ("latitude and longitude of this address", "maps__maps_geocode"),
    ("driving directions from Paris to Lyon", "maps__maps_directions"),
    ("show uncommitted changes in git", "git__git_diff_unstaged"),
    ("commit my changes with a message", "git__git_commit"),
    ("switch to the release branch", "git__git_checkout"),
    ("what time is it in Tokyo", "time__get_current_time"),
    ("convert 3pm New York time to London time", "time__convert_time"),
    ("download this web page as markdown", "fetch__fetch"),
    ("add two numbers", "everything__get-sum"),
];

fn schema(params: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> =
        params.iter().map(|p| ((*p).to_owned(), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": properties})
}

/// The real tools, then distractors of the same shapes from other servers, up to 1,000.
fn documents() -> Vec<SearchDocument> {
    let mut docs: Vec<SearchDocument> = REAL
        .iter()
        .map(|(server, tool, description, params)| {
            SearchDocument::new(format!("mcp__{server}__{tool}"), (*description).to_owned(), schema(params))
        })
        .collect();
    let services =
        ["gitlab", "jira", "linear", "notion", "stripe", "hubspot", "zendesk", "shopify", "sentry", "datadog"];
    let resources =
        ["ticket", "deal", "invoice", "customer", "page", "project", "monitor", "order", "incident", "record"];
    let verbs = [
        ("create", "Create a new"),
        ("list", "List"),
        ("get", "Get a"),
        ("update", "Update a"),
        ("delete", "Delete a"),
    ];
    'fill: for round in 0.. {
        for service in services {
            for resource in resources {
                for (verb, says) in verbs {
                    if docs.len() == 1000 {
                        break 'fill;
                    }
                    let server = if round == 0 { service.to_owned() } else { format!("{service}{round}") };
                    docs.push(SearchDocument::new(
                        format!("mcp__{server}__{verb}_{resource}"),
                        format!("{says} {resource} in {service}"),
                        schema(&["workspace", &format!("{resource}_id")]),
                    ));
                }
            }
        }
    }
    docs
}

#[test]
fn task_phrases_find_real_servers_tools_among_a_thousand() {
    let index = SearchIndex::new(documents());
    assert_eq!(index.len(), 1000);
    let (mut top1, mut top5, mut misses) = (0, 0, Vec::new());
    for (query, want) in QUERIES {
        let want = format!("mcp__{want}");
        let found = index.search(query, 5);
        top1 += usize::from(found.first().is_some_and(|m| m.name == want));
        if std::env::var_os("TOOL_SEARCH_DEBUG").is_some() && found.first().is_none_or(|m| m.name != want) {
            println!("{query} -> {want}: {:?}", found.iter().map(|m| (&m.name, m.score as f32)).collect::<Vec<_>>());
        }
        if found.iter().any(|m| m.name == want) {
            top5 += 1;
        } else {
            misses.push(format!("{query} -> {want}: {:?}", found.iter().map(|m| &m.name).collect::<Vec<_>>()));
        }
    }
    let n = QUERIES.len() as f64;
    let (top1, top5) = (top1 as f64 / n, top5 as f64 / n);
    println!("top-1 {:.1}%, top-5 {:.1}% over {} queries", 100.0 * top1, 100.0 * top5, QUERIES.len());
    assert!(top5 >= 0.95, "top-5 {:.1}%; missed:\n{}", 100.0 * top5, misses.join("\n"));
    assert!(top1 >= 0.80, "top-1 {:.1}%", 100.0 * top1);
}

#[test]
fn an_exact_name_always_wins_and_a_regex_finds_by_pattern() {
    let index = SearchIndex::new(documents());
    for name in ["mcp__slack__slack_post_message", "slack_post_message", "git_commit"] {
        let top = index.search(name, 3);
        assert!(top[0].name.ends_with(name.trim_start_matches("mcp__slack__")), "{name}: {top:?}");
        assert!(top[0].score.is_infinite());
    }
    let regex = index.search_regex("slack_.*(message|thread)", 10).unwrap();
    let names: Vec<&str> = regex.iter().map(|m| m.name.as_str()).collect();
    assert!(names.contains(&"mcp__slack__slack_post_message") && names.contains(&"mcp__slack__slack_reply_to_thread"));
}
