//! The task list tools through the real binary: Claude Code's fields and outputs,
//! one list shared by every writer, and no update lost to a concurrent writer or to
//! a writer killed mid-update.

use serde_json::{Value, json};
use std::process::{Command, Stdio};

fn call(home: &std::path::Path, tool: &str, input: Value) -> (bool, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", tool, &input.to_string(), "--json", "--cwd"])
        .arg(home)
        .env("HOME", home)
        .env("CLAUDE_CODE_TASK_LIST_ID", "shared")
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.success(), result)
}

fn text(result: &Value) -> String {
    result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n")
}

#[test]
fn tasks_have_claude_codes_fields_dependencies_and_deletion() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (ok, first) = call(
        h,
        "TaskCreate",
        json!({"subject": "Write the parser", "description": "In src/parse.rs", "activeForm": "Writing the parser"}),
    );
    assert!(ok, "{first}");
    assert_eq!(text(&first), "Task #1 created successfully: Write the parser");
    assert_eq!(first["structured"], json!({"task": {"id": "1", "subject": "Write the parser"}}));
    call(
        h,
        "TaskCreate",
        json!({"subject": "Test the parser", "description": "Unit tests", "metadata": {"area": "parse"}}),
    );
    let (_, update) = call(h, "TaskUpdate", json!({"taskId": "2", "addBlockedBy": ["1"], "owner": "tester"}));
    assert_eq!(update["structured"]["updatedFields"], json!(["owner", "blockedBy"]), "{update}");
    let (_, list) = call(h, "TaskList", json!({}));
    assert_eq!(
        text(&list),
        "#1 [pending] Write the parser\n#2 [pending] Test the parser (owner: tester) [blocked by #1]"
    );
    let (_, done) = call(h, "TaskUpdate", json!({"taskId": "1", "status": "completed"}));
    assert_eq!(done["structured"]["statusChange"], json!({"from": "pending", "to": "completed"}));
    let (_, got) = call(h, "TaskGet", json!({"taskId": "2"}));
    let task = &got["structured"]["task"];
    assert_eq!((task["blockedBy"].clone(), task["status"].clone()), (json!(["1"]), json!("pending")));
    assert!(!text(&got).contains("Blocked by"), "a completed blocker still blocks: {}", text(&got));
    let (_, meta) = call(h, "TaskUpdate", json!({"taskId": "2", "metadata": {"area": null, "size": 3}}));
    assert!(meta["structured"]["success"] == true);
    let (_, got) = call(h, "TaskGet", json!({"taskId": "2"}));
    assert_eq!(got["structured"]["task"]["metadata"], json!({"size": 3}));
    let (_, gone) = call(h, "TaskUpdate", json!({"taskId": "1", "status": "deleted"}));
    assert_eq!(text(&gone), "Task #1 deleted");
    let (_, missing) = call(h, "TaskGet", json!({"taskId": "1"}));
    assert_eq!(missing["structured"], json!({"task": null}));
    assert_eq!(missing["is_error"], true);
    let (_, bad) = call(h, "TaskUpdate", json!({"taskId": "2", "addBlocks": ["9"]}));
    assert!(text(&bad).contains("Task #9 not found"), "{bad}");
    // Ids are never reused.
    let (_, third) = call(h, "TaskCreate", json!({"subject": "Ship", "description": ""}));
    assert_eq!(third["structured"]["task"]["id"], "3");
}

#[test]
fn concurrent_writers_lose_nothing_and_a_killed_writer_leaves_the_list_whole() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_owned();
    let writers: Vec<_> = (0..8)
        .map(|i| {
            let h = h.clone();
            std::thread::spawn(move || {
                call(&h, "TaskCreate", json!({"subject": format!("task {i}"), "description": ""}))
            })
        })
        .collect();
    for writer in writers {
        assert!(writer.join().unwrap().0);
    }
    // Writers killed at random points of their update.
    for delay in [0u64, 2, 5, 10, 20] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolwright"))
            .args(["call", "TaskCreate", r#"{"subject": "doomed", "description": ""}"#, "--cwd"])
            .arg(&h)
            .env("HOME", &h)
            .env("CLAUDE_CODE_TASK_LIST_ID", "shared")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
    }
    let (ok, list) = call(&h, "TaskList", json!({}));
    assert!(ok, "{list}");
    let tasks = list["structured"]["tasks"].as_array().unwrap().clone();
    let subjects: Vec<&str> = tasks.iter().filter_map(|t| t["subject"].as_str()).collect();
    for i in 0..8 {
        assert!(subjects.contains(&format!("task {i}").as_str()), "task {i} lost: {subjects:?}");
    }
    let mut ids: Vec<u64> = tasks.iter().map(|t| t["id"].as_str().unwrap().parse().unwrap()).collect();
    let count = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), count, "an id given twice");
    let file = h.join(".toolwright/tasks/shared.json");
    let stored: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    assert_eq!(stored["tasks"].as_array().unwrap().len(), count);
}
