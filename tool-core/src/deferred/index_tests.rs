//! The index's tests: rankings, query forms, explanations.
use super::*;
use serde_json::json;

fn doc(name: &str, description: &str, schema: Value) -> SearchDocument {
    SearchDocument::new(name, description, schema)
}

fn index() -> SearchIndex {
    SearchIndex::new([
        doc(
            "mcp__github__create_issue",
            "Create a new issue in a GitHub repository",
            json!({"properties": {"owner": {}, "repo": {}, "title": {}, "body": {}}}),
        ),
        doc("mcp__github__list_issues", "List issues in a GitHub repository", json!({})),
        doc(
            "mcp__slack__post_message",
            "Post a message to a Slack channel",
            json!({"properties": {"channel_id": {"description": "The channel"}, "text": {}}}),
        ),
        doc(
            "mcp__weather__get_forecast",
            "Get the weather forecast for a location",
            json!({"properties": {"latitude": {}, "longitude": {}}}),
        ),
        doc("mcp__fs__delete_file", "Delete a file", json!({"properties": {"path": {}}})),
    ])
}

#[test]
fn task_phrases_find_their_tool() {
    let index = index();
    for (query, want) in [
        ("open a new bug report on the repo", "mcp__github__create_issue"),
        ("send a message to the team channel", "mcp__slack__post_message"),
        ("will it rain tomorrow forecast", "mcp__weather__get_forecast"),
        ("remove a file", "mcp__fs__delete_file"),
        ("show me the issues", "mcp__github__list_issues"),
    ] {
        let top = index.search(query, 3);
        assert_eq!(top.first().map(|m| m.name.as_str()), Some(want), "{query}: {top:?}");
    }
}

#[test]
fn an_exact_name_wins() {
    let index = index();
    let top = index.search("list_issues", 5);
    assert_eq!(top[0].name, "mcp__github__list_issues");
    assert!(top[0].score.is_infinite());
    assert_eq!(index.search("mcp__fs__delete_file", 1)[0].name, "mcp__fs__delete_file");
}

#[test]
fn a_plain_word_in_a_sentence_is_not_a_name() {
    let index = SearchIndex::new([
        doc("mcp__elastic__search", "Run an Elasticsearch query DSL request against an index", json!({})),
        doc("mcp__brave__brave_web_search", "Search the web with Brave for pages and news", json!({})),
    ]);
    let top = index.search("search the web", 2);
    assert_eq!(top[0].name, "mcp__brave__brave_web_search", "{top:?}");
    assert!(top[0].score.is_finite());
    // Alone, the word is the name.
    assert!(index.search("search", 1)[0].score.is_infinite());
    assert_eq!(index.search("brave_web_search", 1)[0].name, "mcp__brave__brave_web_search");
}

#[test]
fn explain_tells_why_a_tool_ranks_where_it_does() {
    let index = index();
    let query = "open a new bug report on the repo";
    let why = index.explain(query, "mcp__github__create_issue").expect("indexed");
    assert_eq!(why.rank, Some(1));
    assert_eq!(why.score, index.search(query, 1)[0].score, "the same score the search ranks by");
    assert!(why.verb_boost && !why.exact_name);
    let bug = why.words.iter().find(|w| w.word == "bug").and_then(|w| w.matched.as_ref()).expect("bug matched");
    assert!(bug.synonym && bug.term == "issu" && bug.fields.contains(&"name"), "{bug:?}");
    let report = why.words.iter().find(|w| w.word == "report").expect("report asked");
    assert!(report.matched.is_none());
    let sentence = why.to_string();
    assert!(sentence.starts_with("mcp__github__create_issue ranks 1 with "), "{sentence}");
    assert!(sentence.contains("`bug` through `issu` in name, description") && sentence.contains("`report` not found"));

    let second = index.explain(query, "mcp__github__list_issues").expect("indexed");
    assert_eq!(second.rank, Some(2), "{second}");
    assert!(second.score < why.score);
    let none = index.explain(query, "mcp__weather__get_forecast").expect("indexed");
    assert_eq!(none.rank, None);
    assert!(none.to_string().ends_with("does not match: no word of the query is in it"));
    assert!(index.explain(query, "no_such_tool").is_none());
    let exact = index.explain("list_issues", "mcp__github__list_issues").expect("indexed");
    assert!(exact.exact_name && exact.rank == Some(1) && exact.score.is_infinite());
}

#[test]
fn a_query_that_names_a_server_prefers_its_tools() {
    let index = SearchIndex::new([
        doc("mcp__filesystem__write_file", "Write a new file with the given content", json!({})),
        doc("mcp__notion__post_page", "Create a page under a parent", json!({})),
    ]);
    let top = index.search("write a new page in notion", 2);
    assert_eq!(top[0].name, "mcp__notion__post_page", "{top:?}");
    assert_eq!(top[0].server.as_deref(), Some("notion"));
    assert!(index.explain("write a new page in notion", "mcp__notion__post_page").unwrap().server_named);
}

#[test]
fn regex_queries_match_names_first() {
    let index = index();
    let found = index.search_regex("issue|forecast", 10).unwrap();
    let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["mcp__github__create_issue", "mcp__github__list_issues", "mcp__weather__get_forecast"]);
    assert_eq!(index.search_regex("(?i)CHANNEL", 10).unwrap()[0].name, "mcp__slack__post_message");
    assert!(matches!(index.search_regex("(", 1), Err(SearchError::Pattern { .. })));
}

#[test]
fn claude_codes_query_forms_scope_the_search() {
    let index = SearchIndex::new([
        doc("mcp__slack__send_message", "Send a message to a Slack channel.", json!({"required": ["channel", "text"]})),
        doc("mcp__gmail__send_email", "Send an email message.", json!({})),
        doc("mcp__github__create_issue", "Create an issue.", json!({})),
        doc("notes_add", "Add a note.", json!({})),
    ]);
    let names = |query: &str| index.search(query, 5).into_iter().map(|m| m.name).collect::<Vec<_>>();
    assert_eq!(names("+slack send a message"), ["mcp__slack__send_message"]);
    assert_eq!(names("server:gmail send a message"), ["mcp__gmail__send_email"]);
    assert_eq!(names("server:Gmail send a message"), ["mcp__gmail__send_email"], "case does not matter");
    assert!(names("+slack +github send").is_empty(), "every +word must be in the name");
    // A scope alone lists the server's tools.
    assert_eq!(names("server:github"), ["mcp__github__create_issue"]);
    assert_eq!(index.search_in("send", Some("slack"), 5)[0].name, "mcp__slack__send_message");
    // Names with or without the MCP prefix.
    assert_eq!(names("mcp__github__create_issue")[0], "mcp__github__create_issue");
    assert_eq!(names("create_issue")[0], "mcp__github__create_issue");
    // A match names what it requires.
    assert_eq!(index.search("+slack send", 1)[0].required, ["channel", "text"]);
}

#[test]
fn a_scope_whose_tools_do_not_say_the_words_still_offers_them() {
    let index = SearchIndex::new([
        doc("mcp__memory__create_entities", "Create entities in the knowledge graph.", json!({})),
        doc("mcp__memory__search_nodes", "Search for nodes in the knowledge graph.", json!({})),
        doc("mcp__slack__send_message", "Send a message to a Slack channel.", json!({})),
    ]);
    let found = index.search("server:memory remember that Alice works at Acme", 5);
    let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["mcp__memory__create_entities", "mcp__memory__search_nodes"], "in order, only the scope's");
    assert!(found.iter().all(|m| m.score == 0.0), "scored as matching nothing: {found:?}");
    // Without a scope, nothing.
    assert!(index.search("remember that Alice works at Acme", 5).is_empty());
    // A scope with a match ranks as before.
    assert_eq!(index.search("+memory search the graph", 1)[0].name, "mcp__memory__search_nodes");
}

#[test]
fn a_plus_word_narrows_and_the_other_words_rank() {
    // `github` is in every admitted name: counted, it would favour the shorter
    // document whatever the task; the task's words decide.
    let index = SearchIndex::new([
        doc("mcp__github__get_me", "Get the authenticated GitHub user.", json!({})),
        doc("mcp__github__list_commits", "List the commits of a branch.", json!({})),
    ]);
    let best = &index.search("+github history of a branch", 1)[0];
    assert_eq!(best.name, "mcp__github__list_commits");
    let explained = index.explain("+github history of a branch", "mcp__github__get_me").unwrap();
    assert!(explained.words.iter().all(|w| w.word != "github"), "{explained}");
}

#[test]
fn extra_search_text_finds_a_tool_its_description_does_not() {
    let plain = SearchIndex::new([
        doc("mcp__crm__upsert_contact", "Upsert a contact record.", json!({})),
        doc("mcp__crm__merge_records", "Merge two records.", json!({})),
    ]);
    assert!(plain.search("enroll a patron", 1).is_empty());
    let hinted = SearchIndex::new([
        doc("mcp__crm__upsert_contact", "Upsert a contact record.", json!({})).with_keywords("enroll a new patron"),
        doc("mcp__crm__merge_records", "Merge two records.", json!({})),
    ]);
    assert_eq!(hinted.search("enroll a patron", 1)[0].name, "mcp__crm__upsert_contact");
}

#[test]
fn the_closest_servers_come_from_tools_then_summaries() {
    let index = SearchIndex::new([
        doc("mcp__slack__send_message", "Send a message to a channel.", json!({})),
        doc("mcp__calendar__list_events", "List events.", json!({})),
        doc("mcp__zeta__noop", "Nothing.", json!({})),
    ]);
    let summary = |s: &str| (s == "calendar").then(|| "Meetings and schedules.".to_owned());
    let closest = index.closest_servers("server:calendar send a message about the meeting", summary, 5);
    assert_eq!(closest, ["slack", "calendar", "zeta"]);
}

#[test]
fn a_title_is_searched() {
    let titled = SearchIndex::new([
        doc("mcp__cal__insert", "Insert into the primary store.", json!({})).with_title("Create Calendar Event"),
        doc("mcp__cal__put", "Put an object into the store.", json!({})),
    ]);
    assert_eq!(titled.search("add a calendar event", 1)[0].name, "mcp__cal__insert");
    let why = titled.explain("add a calendar event", "mcp__cal__insert").unwrap();
    assert!(why.to_string().contains("`calendar` in title"), "{why}");
}

#[test]
fn a_descriptions_first_sentence_counts_most() {
    // The first sentence says what the tool is for; the rest often names others.
    let index = SearchIndex::new([
        doc(
            "mcp__fs__remove",
            "Delete a file. Takes a path, which must be absolute, and fails when the path names a folder.",
            json!({}),
        ),
        doc("mcp__fs__stat", "Show a file's size. Never to delete a file.", json!({})),
    ]);
    assert_eq!(index.search("delete a file", 1)[0].name, "mcp__fs__remove");
    assert_eq!(
        split_first_sentence("\n   Stop a search.\n  Stops the process. More."),
        ("Stop a search.", "\n  Stops the process. More.")
    );
    assert_eq!(split_first_sentence("Line one\n\nPara two. x"), ("Line one", "\n\nPara two. x"));
    assert_eq!(split_first_sentence("v1.2 of e.g. it"), ("v1.2 of e.g.", " it"));
    assert_eq!(first_sentence("Read a\n   file. Then more."), "Read a file.");
}

#[test]
fn a_question_is_answered_by_a_tool_that_reads() {
    let index = SearchIndex::new([
        doc("mcp__k8s__exec_in_pod", "Execute in a pod.", json!({})),
        doc("mcp__k8s__list_pods", "List the pods of a namespace with their states and ages.", json!({})),
        doc("mcp__cf__worker_get", "Get a worker's script.", json!({})),
        doc("mcp__cf__worker_list", "List workers.", json!({})),
    ]);
    let question = "which pods are there";
    assert_eq!(index.search(question, 1)[0].name, "mcp__k8s__list_pods");
    let why = index.explain(question, "mcp__k8s__list_pods").unwrap();
    assert!(why.reads_for_question && why.lists_for_question, "{why}");
    assert!(why.to_string().contains("the query is a question and the tool only reads"), "{why}");
    let write = index.explain(question, "mcp__k8s__exec_in_pod").unwrap();
    assert!(!write.reads_for_question, "{write}");
    assert!(write.score > why.score / (QUESTION_BOOST * LIST_BOOST), "the words alone favour running: {write}");
    // The same words as an order run the command.
    assert_eq!(index.search("execute a command in the pod", 1)[0].name, "mcp__k8s__exec_in_pod");
    // A question about things in the plural lists them.
    assert_eq!(index.search("which workers do I have", 1)[0].name, "mcp__cf__worker_list");
    assert!(index.explain("which workers do I have", "mcp__cf__worker_list").unwrap().lists_for_question);
    assert_eq!(index.search("what is in the worker's script?", 1)[0].name, "mcp__cf__worker_get");
}

#[test]
fn a_plus_word_that_names_a_server_prefers_that_servers_tools() {
    let index = SearchIndex::new([
        doc("mcp__crawler__search_github", "Search GitHub for papers' code and pull request notes.", json!({})),
        doc("mcp__github__create_pull_request_review", "Review a pull request.", json!({})),
    ]);
    let top = index.search("+github approve the pull request", 2);
    assert_eq!(top.len(), 2, "both have the word in their names: {top:?}");
    assert_eq!(top[0].name, "mcp__github__create_pull_request_review", "{top:?}");
    assert!(index.explain("+github approve the pull request", &top[0].name).unwrap().server_named);
}

#[test]
fn the_verb_of_a_name_is_found_where_it_stands() {
    // `kubectl_delete`, `r2_create_bucket`: a namespace first, then the verb.
    let index = SearchIndex::new([
        doc("mcp__k8s__kubectl_delete", "Remove resources of any kind from the cluster by name.", json!({})),
        doc("mcp__k8s__node_management", "Cordon, drain or uncordon a node; delete after draining.", json!({})),
    ]);
    let why = index.explain("delete the node", "mcp__k8s__kubectl_delete").unwrap();
    assert!(why.verb_boost, "{why}");
    assert!(!index.explain("delete the node", "mcp__k8s__node_management").unwrap().verb_boost);
}
