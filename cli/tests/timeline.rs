//! The session timeline: `replay --timeline`, and `toolwright timeline` over the
//! `--json` lines or an OTLP JSON export. Structure, not pixels: the bars and
//! their data attributes, the marks, and nothing fetched from anywhere.

#[path = "../../tests/common/mod.rs"]
mod common;

use serde_json::json;
use std::path::Path;
use std::process::Command;

fn toolwright(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toolwright")).args(args).current_dir(dir).env("HOME", dir).output().unwrap()
}

/// Each call bar's (call id, status, start, end, batch), in page order.
fn bars(html: &str) -> Vec<(String, String, f64, f64, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        let at = tag.find(&key).map(|i| i + key.len()).unwrap_or(tag.len());
        tag[at..].split('"').next().unwrap_or_default().to_owned()
    };
    html.split("<div class=\"bar call ")
        .skip(1)
        .map(|rest| {
            let tag = rest.split('>').next().unwrap();
            (
                attr(tag, "data-call-id"),
                attr(tag, "data-status"),
                attr(tag, "data-start-ms").parse().unwrap(),
                attr(tag, "data-end-ms").parse().unwrap(),
                attr(tag, "data-batch"),
            )
        })
        .collect()
}

/// Nothing in the page may load from anywhere.
fn self_contained(html: &str) {
    for banned in ["<script", "src=", "href=", "url(", "@import", "http://", "https://"] {
        assert!(!html.contains(banned), "the page has `{banned}`");
    }
    assert!(html.contains("default-src 'none'"), "a CSP that forbids loading");
}

#[test]
fn a_replay_writes_its_calls_refusals_and_waits_as_a_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path(), &["replay", "trouble", "--deny", "--timeline", "t.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("t.html")).unwrap();
    self_contained(&html);
    let bars = bars(&html);
    assert_eq!(bars.len(), 5, "one bar per call");
    assert!(bars.windows(2).all(|w| w[0].2 <= w[1].2), "in start order");
    let denied: Vec<_> = bars.iter().filter(|b| b.1 == "denied").collect();
    assert_eq!(denied.len(), 2, "{bars:?}");
    // Refusals say so in text, not in colour alone; the wait for an answer is marked
    // on the call it was about.
    assert!(html.matches("⊘ denied").count() >= 2);
    let wait = html.split("class=\"bar wait\" data-call-id=\"").nth(1).expect("a wait mark");
    let waited_on = wait.split('"').next().unwrap();
    assert!(bars.iter().any(|b| b.0 == waited_on), "the wait is on a call of the session");
    assert!(html.contains("data-calls=\"5\""), "the numbers at the top");
    assert!(!html.contains("-0 ms"), "no negative zero");
}

#[test]
fn a_tooltip_gives_the_line_that_says_what_happened() {
    // The default session's first call runs failing tests: unittest prints a rule
    // of `=` before the error, which says nothing.
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path(), &["replay", "--timeline", "t.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("t.html")).unwrap();
    let first = html.split("class=\"bar call ").nth(1).expect("a call bar");
    let title = first.split("title=\"").nth(1).unwrap().split('"').next().unwrap();
    let result = title.split("&#10;").find(|l| l.starts_with("result: ")).expect(title);
    assert!(result.starts_with("result: ERROR: test_mean_of_one"), "{title}");
}

#[test]
fn the_json_lines_of_a_replay_draw_the_same_calls_and_overlaps_show() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path(), &["replay", "explore", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout).unwrap();
    assert!(lines.lines().all(|l| l.contains("\"t_ms\"")), "every event has its time");
    std::fs::write(dir.path().join("trace.jsonl"), &lines).unwrap();
    let out = toolwright(dir.path(), &["timeline", "trace.jsonl"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("trace.html")).unwrap();
    self_contained(&html);
    let bars = bars(&html);
    let started = lines.lines().filter(|l| l.contains("\"type\":\"started\"")).count();
    assert_eq!(bars.len(), started);
    // The explore session reads several files together: some bars overlap, in one batch.
    let overlapping = bars
        .iter()
        .enumerate()
        .any(|(i, a)| bars.iter().skip(i + 1).any(|b| a.2 < b.3 && b.2 < a.3 && !a.4.is_empty() && a.4 == b.4));
    assert!(overlapping, "{bars:?}");
    assert!(html.contains("· batch 1"), "batches are labelled");
}

#[test]
fn subagents_calls_are_bars_in_collapsible_groups() {
    let dir = tempfile::tempdir().unwrap();
    let out = toolwright(dir.path(), &["replay", "delegate", "--yes", "--json", "--timeline", "d.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = String::from_utf8(out.stdout).unwrap();
    let html = std::fs::read_to_string(dir.path().join("d.html")).unwrap();
    self_contained(&html);
    // Every call of the session, the subagents' too, is a bar.
    let calls = lines
        .lines()
        .filter(|l| l.contains("\"type\":\"started\"") || l.contains("\"type\":\"subagent_call_started\""))
        .count();
    assert_eq!(bars(&html).len(), calls, "{lines}");
    let children = lines.lines().filter(|l| l.contains("\"type\":\"subagent_started\"")).count();
    assert!(children >= 2);
    assert_eq!(html.matches("<details open class=\"group\"").count(), children, "one group per subagent");
    // Each group stands right under the agent call that started it, titled with the
    // call's description, not the agent's id.
    for line in lines.lines().filter(|l| l.contains("\"type\":\"subagent_started\"")) {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let (call, description) = (event["parent_call_id"].as_str().unwrap(), event["description"].as_str().unwrap());
        let bar = html.find(&format!("data-call-id=\"{call}\" data-tool=\"Agent\"")).expect("the agent call's bar");
        let group = html.find(&format!("data-call-id=\"{call}\"><summary>")).expect("its group");
        assert!(group > bar, "the group follows its call");
        let next_lane = html[bar..].find("<div class=\"lane\">").map(|at| bar + at);
        assert!(next_lane.is_none_or(|lane| group < lane), "nothing stands between the call and its group");
        let summary = &html[group..group + html[group..].find("</summary>").unwrap()];
        assert!(summary.contains(description), "{summary}");
        assert!(!summary.contains(event["agent_id"].as_str().unwrap()), "{summary}");
    }
    // Each subagent's model turns are drawn in its group.
    let groups: Vec<&str> = html.split("<details open class=\"group\"").skip(1).collect();
    assert!(groups.iter().all(|g| g.contains("class=\"bar turn\"")), "a group without its model turns");
    // The header agrees with the run's summary: a subagent's calls are inside the
    // agent call that started it, counted once.
    let summary: serde_json::Value =
        serde_json::from_str(lines.lines().find(|l| l.contains("\"type\":\"summary\"")).unwrap()).unwrap();
    let numbers = &html[html.find("class=\"numbers\"").unwrap()..];
    let in_tools: f64 = numbers.split(" ms in tools").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    let said = summary["call_time_ms"].as_f64().unwrap();
    assert!((in_tools - said).abs() <= 2.0 + said * 0.02, "header {in_tools} ms, summary {said} ms");
}

#[test]
fn two_thousand_calls_make_one_page_of_bounded_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec![json!({"type": "start", "what": "a long session", "t_ms": 0.0}).to_string()];
    for i in 0..2000 {
        let start = i as f64 * 3.0;
        lines.push(
            json!({"type": "started", "call_id": format!("c{i}"), "tool": "read_file",
            "input": format!("{{\"path\": \"src/file{i}.rs\"}}"), "t_ms": start})
            .to_string(),
        );
        let error = (i % 97 == 0).then_some("failed");
        lines.push(
            json!({"type": "finished", "call_id": format!("c{i}"), "tool": "read_file", "ok": error.is_none(),
            "error": error, "duration_ms": 5.0, "summary": "read", "result": "ok <b>&amp;</b>", "t_ms": start + 5.0})
            .to_string(),
        );
    }
    std::fs::write(dir.path().join("long.jsonl"), lines.join("\n")).unwrap();
    let out = toolwright(dir.path(), &["timeline", "long.jsonl", "-o", "long.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("long.html")).unwrap();
    assert_eq!(bars(&html).len(), 2000);
    assert_eq!(bars(&html).iter().filter(|b| b.1 == "error").count(), 21);
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    // Text from the session is escaped, never markup.
    assert!(!html.contains("<b>&amp;</b>") && html.contains("&lt;b&gt;"));
}

/// An OTLP trace id, as exporters write it.
const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";

/// A span id (16 hexadecimal digits) made from a short name; "" stays "".
fn span_id(name: &str) -> String {
    if name.is_empty() {
        return String::new();
    }
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{hex:0>16}")
}

#[test]
fn an_otlp_export_of_the_spans_draws_subagents_as_groups() {
    let dir = tempfile::tempdir().unwrap();
    let attr = |k: &str, v: &str| json!({"key": k, "value": {"stringValue": v}});
    let span = |id: &str, parent: &str, name: &str, start: u64, end: u64, attrs: Vec<serde_json::Value>| {
        json!({"traceId": TRACE_ID, "spanId": span_id(id), "parentSpanId": span_id(parent), "name": name,
            "startTimeUnixNano": (1_700_000_000_000_000_000u64 + start * 1_000_000).to_string(),
            "endTimeUnixNano": (1_700_000_000_000_000_000u64 + end * 1_000_000).to_string(), "attributes": attrs})
    };
    let spans = vec![
        {
            let mut run = span("a", "", "invoke_agent main", 0, 100, vec![attr("gen_ai.agent.name", "main")]);
            run["events"] = json!([{"timeUnixNano": "1700000000005000000", "name": "retry: the model request is sent again",
                "attributes": [{"key": "toolwright.retry.attempt", "value": {"intValue": "1"}},
                               {"key": "error.type", "value": {"stringValue": "529"}}]}]);
            run
        },
        span(
            "m1",
            "a",
            "chat claude",
            0,
            10,
            vec![
                json!({"key": "toolwright.server_tool.uses", "value": {"intValue": "2"}}),
                json!({"key": "toolwright.server_tool.results", "value": {"intValue": "7"}}),
            ],
        ),
        span(
            "c1",
            "a",
            "execute_tool agent",
            10,
            90,
            vec![attr("gen_ai.tool.name", "agent"), attr("gen_ai.tool.call.id", "call-1")],
        ),
        span("s", "c1", "invoke_agent Explore", 11, 89, vec![attr("gen_ai.agent.name", "Explore")]),
        span(
            "c2",
            "s",
            "execute_tool read_file",
            20,
            30,
            vec![attr("gen_ai.tool.name", "read_file"), attr("gen_ai.tool.call.id", "call-2")],
        ),
        span(
            "c3",
            "s",
            "execute_tool shell",
            31,
            60,
            vec![
                attr("gen_ai.tool.name", "shell"),
                attr("gen_ai.tool.call.id", "call-3"),
                attr("error.type", "denied"),
            ],
        ),
        span("p", "c3", "permission shell", 31, 59, vec![]),
        span("h", "c2", "hook PreToolUse audit", 20, 24, vec![]),
        span("w", "p", "approval shell", 32, 58, vec![attr("toolwright.approval.answer", "deny")]),
    ];
    let export = json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});
    std::fs::write(dir.path().join("otlp.json"), export.to_string()).unwrap();
    let out = toolwright(dir.path(), &["timeline", "otlp.json", "-o", "otlp.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("otlp.html")).unwrap();
    self_contained(&html);
    let bars = bars(&html);
    assert_eq!(bars.len(), 3);
    assert!(html.contains("<details open class=\"group\" data-agent=\"Explore\""), "the subagent's group");
    assert!(html.contains("class=\"bar wait\" data-call-id=\"call-3\""), "the wait on its call");
    assert!(bars.iter().any(|b| b.0 == "call-3" && b.1 == "denied"));
    assert!(html.contains("class=\"bar turn\""), "the model turn");
    assert!(html.contains("class=\"bar retry\" data-attempt=\"1\" data-at-ms=\"5.0\""), "the retry, at 5 ms");
    assert!(html.contains("retry after attempt 1: 529"));
    // The provider's searches in a response: one mark at its end.
    assert!(
        html.contains("data-server-tool=\"web_search\" data-at-ms=\"10.0\"")
            && html.contains("the provider's web_search: 2 searches, 7 results"),
        "{html}"
    );
    assert!(
        html.contains("class=\"bar hook\" data-call-id=\"call-2\" data-hook=\"PreToolUse audit\""),
        "the hook on its call"
    );
}

#[test]
fn a_file_that_is_no_trace_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.jsonl"), "{\"type\":\"start\"}\nnot json\n").unwrap();
    let out = toolwright(dir.path(), &["timeline", "bad.jsonl"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl") && stderr.contains("line 2"), "{stderr}");
    std::fs::write(dir.path().join("empty.jsonl"), "{\"type\":\"start\"}\n").unwrap();
    let out = toolwright(dir.path(), &["timeline", "empty.jsonl"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no calls"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!dir.path().join("empty.html").exists());
    // Fields of the wrong kind: the line and the field, and no page.
    let start = r#"{"type":"start"}"#;
    for (line, field) in [
        (r#"{"type":"started","call_id":5,"tool":"x","t_ms":1}"#, "call_id"),
        (r#"{"type":"started","call_id":"a","tool":["x"],"t_ms":1}"#, "tool"),
        (r#"{"type":"finished","call_id":"a","t_ms":"soon"}"#, "t_ms"),
        (r#"{"type":"started","call_id":"a","tool":"x","t_ms":-3}"#, "t_ms"),
        ("[1, 2]", "event"),
    ] {
        std::fs::write(dir.path().join("odd.jsonl"), format!("{start}\n{line}\n")).unwrap();
        let out = toolwright(dir.path(), &["timeline", "odd.jsonl"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{line}: {stderr}");
        assert!(stderr.contains("line 2") && stderr.contains(&format!("`{field}`")), "{line}: {stderr}");
        assert!(!dir.path().join("odd.html").exists());
    }
}

#[test]
fn an_otlp_span_that_ends_before_it_starts_is_an_instant_named_by_its_span() {
    let dir = tempfile::tempdir().unwrap();
    let doc = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": TRACE_ID, "spanId": span_id("a"), "name": "execute_tool grep",
         "startTimeUnixNano": "2000000000", "endTimeUnixNano": "1000000000"}]}]}]});
    std::fs::write(dir.path().join("back.json"), doc.to_string()).unwrap();
    let out = toolwright(dir.path(), &["timeline", "back.json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("timeline of 1 call written"), "{stderr}");
    let html = std::fs::read_to_string(dir.path().join("back.html")).unwrap();
    let bars = bars(&html);
    assert_eq!(bars.len(), 1);
    assert!(bars[0].3 >= bars[0].2, "{bars:?}");
    assert!(html.contains("data-tool=\"grep\""), "the tool named by the span's name");
    assert!(!html.contains("-1000"), "no negative duration");
}

#[test]
fn the_summary_names_the_time_in_the_model_the_tools_approval_and_hooks() {
    use common::scripted::{Reply, serve};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "the answer is 42\n").unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let hooks =
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "sleep 0.2"}]}]}});
    std::fs::write(dir.path().join(".claude/settings.json"), hooks.to_string()).unwrap();
    // The model takes 300 ms over its first response, then answers.
    let (url, _log) = serve(|logged| {
        if logged.results().is_empty() {
            Reply::calls(vec![("read_file", json!({"path": "notes.txt"}))]).after(std::time::Duration::from_millis(300))
        } else {
            Reply::text("42.")
        }
    });
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["agent", "--provider", "anthropic", "--yes", "--json", "--timeline", "agent.html", "--workspace"])
        .arg(dir.path())
        .arg("What do the notes say?")
        .current_dir(dir.path())
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("ANTHROPIC_BASE_URL", &url)
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let summary = stdout.lines().rev().find(|l| l.contains("\"type\":\"summary\"")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(summary).unwrap();
    let at_least = |key: &str, ms: f64| assert!(summary[key].as_f64().unwrap() >= ms, "{key}: {summary}");
    at_least("model_ms", 300.0);
    at_least("hooks_ms", 180.0);
    at_least("call_time_ms", 180.0);
    for key in ["waiting_ms", "wall_ms", "parallelism"] {
        assert!(summary[key].as_f64().is_some(), "{key}: {summary}");
    }
    // The agent's timeline has its call and its model turns.
    let html = std::fs::read_to_string(dir.path().join("agent.html")).unwrap();
    self_contained(&html);
    assert_eq!(bars(&html).len(), 1);
    assert_eq!(html.matches("class=\"bar turn\"").count(), 2);
    // The hook's run is marked on the call it ran on, as long as it took.
    let call_id = &bars(&html)[0].0;
    let hook =
        html.split(&format!("class=\"bar hook\" data-call-id=\"{call_id}\" data-hook=\"")).nth(1).expect("a hook mark");
    assert!(hook.starts_with("PreToolUse"), "{hook}");
    let attr = |name: &str| -> f64 {
        let at = hook.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        hook[at..].split('"').next().unwrap().parse().unwrap()
    };
    assert!(attr("data-end-ms") - attr("data-start-ms") >= 180.0, "{hook}");
}

#[test]
fn a_timeline_that_cannot_be_written_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pages")).unwrap();
    for (target, says) in [("missing/t.html", "there is no directory"), ("pages", "is a directory")] {
        let out = toolwright(dir.path(), &["replay", "--timeline", target]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{target}: {stderr}");
        assert!(stderr.contains(&format!("--timeline {target}")) && stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty(), "the session did not run: {}", String::from_utf8_lossy(&out.stdout));
    }
}

#[test]
fn a_cancelled_call_is_marked_as_cancelled_not_as_failed() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"started","call_id":"a","tool":"shell","input":"sleep 60","t_ms":1}"#,
        r#"{"type":"started","call_id":"b","tool":"shell","input":"false","t_ms":1}"#,
        r#"{"type":"finished","call_id":"b","ok":false,"error":"failed","t_ms":5}"#,
        r#"{"type":"finished","call_id":"a","ok":false,"error":"cancelled","t_ms":6}"#,
    ];
    std::fs::write(dir.path().join("stop.jsonl"), lines.join("\n")).unwrap();
    let out = toolwright(dir.path(), &["timeline", "stop.jsonl"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(dir.path().join("stop.html")).unwrap();
    let bars = bars(&html);
    assert_eq!(
        bars.iter().map(|b| (b.0.as_str(), b.1.as_str())).collect::<Vec<_>>(),
        [("a", "cancelled"), ("b", "error")]
    );
    assert!(html.contains("■ cancelled"), "said in text, not colour alone");
    assert!(html.contains("1 failed, 0 refused, 1 cancelled"), "the numbers count it apart");
}

/// What the user names as an output is never replaced by a file unless it is one: a
/// device, a FIFO, a socket or a directory is refused with a line naming it, before
/// anything runs or is written; a link is written through and stays a link.
#[test]
fn an_output_that_is_not_a_regular_file_is_never_replaced() {
    use std::os::unix::fs::FileTypeExt as _;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.html");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let socket = dir.path().join("socket.html");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let cases = [("/dev/null", "device"), ("fifo.html", "FIFO"), ("socket.html", "socket")];
    for (target, says) in cases {
        let ws = dir.path().join(format!("ws-{says}"));
        let args = ["replay", "--timeline", target, "--workspace", ws.to_str().unwrap()];
        let out = toolwright(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{target}: {stderr}");
        assert!(stderr.contains(&format!("--timeline {target}: is a {says}")), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(!ws.exists(), "the workspace was written before the output was checked");
    }
    assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(std::fs::symlink_metadata(&socket).unwrap().file_type().is_socket());
    // `timeline -o` the same, naming the path given, never a temporary file.
    let trace = dir.path().join("t.jsonl");
    let out = toolwright(dir.path(), &["replay", "--json"]);
    std::fs::write(&trace, &out.stdout).unwrap();
    for (target, says) in [("fifo.html", "is a FIFO"), ("/nonexistent/dir/o.html", "there is no directory")] {
        let out = toolwright(dir.path(), &["timeline", "t.jsonl", "-o", target]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(&format!("{target}: {says}")), "{stderr}");
        assert!(!stderr.contains(".tmp"), "{stderr}");
    }
    // A link is followed: its target gets the page, the link stays.
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink("page.html", &link).unwrap();
    let out = toolwright(dir.path(), &["timeline", "t.jsonl", "-o", "link.html"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    let page = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("/tmp/") && !page.contains("toolwright-replay-"), "a temporary path in the page");
}

/// An OTLP export with an id or time of the wrong kind is refused naming the line
/// and the field, as other malformed input is, and no page is written.
#[test]
fn an_otlp_span_with_invalid_ids_is_refused_naming_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let good = json!({"traceId": TRACE_ID, "spanId": span_id("a"), "name": "execute_tool grep",
        "startTimeUnixNano": "1000000000", "endTimeUnixNano": "2000000000"});
    let with = |key: &str, value: serde_json::Value| {
        let mut span = good.clone();
        span[key] = value;
        span
    };
    for (bad, field) in [
        (with("spanId", json!(5)), "spanId"),
        (with("spanId", json!("xyz")), "spanId"),
        (with("spanId", json!("0000000000000000")), "spanId"),
        (with("traceId", json!("t")), "traceId"),
        (with("parentSpanId", json!(7)), "parentSpanId"),
        (with("startTimeUnixNano", json!("soon")), "startTimeUnixNano"),
        (with("endTimeUnixNano", json!(-1)), "endTimeUnixNano"),
    ] {
        // Pretty-printed: the second span stands lower, on its own lines.
        let doc = json!({"resourceSpans": [{"scopeSpans": [{"spans": [good, bad]}]}]});
        let text = serde_json::to_string_pretty(&doc).unwrap();
        let line = text.match_indices("\"spanId\"").nth(1).map(|(at, _)| text[..at].matches('\n').count() + 1).unwrap();
        std::fs::write(dir.path().join("ids.json"), &text).unwrap();
        let out = toolwright(dir.path(), &["timeline", "ids.json"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{field}: {stderr}");
        assert!(stderr.contains(&format!("line {line}: `{field}`")), "{field} (line {line}): {stderr}");
        assert!(!dir.path().join("ids.html").exists());
        // One document per line: the line is the document's.
        let lines = format!(
            "{}\n{}\n",
            json!({"resourceSpans": [{"scopeSpans": [{"spans": [good]}]}]}),
            json!({"resourceSpans": [{"scopeSpans": [{"spans": [bad]}]}]})
        );
        std::fs::write(dir.path().join("ids.jsonl"), lines).unwrap();
        let out = toolwright(dir.path(), &["timeline", "ids.jsonl"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(&format!("line 2: `{field}`")), "{field}: {stderr}");
    }
}
