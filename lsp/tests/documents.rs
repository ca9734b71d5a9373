//! The documents a server holds: opened on first use, changed when their text
//! changed, at most 50 open (the least recently used closed first), against a
//! minimal server that logs what it is told (`fake_lsp.py`).

use std::path::Path;
use toolwright_lsp::{LspServers, MAX_OPEN_DOCUMENTS, Operation, Query, ServerConfig};

fn fake(log: &Path) -> ServerConfig {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_lsp.py");
    ServerConfig::new("fake", "python3", [(".txt", "plaintext")])
        .with_args([script.to_str().unwrap(), log.to_str().unwrap()])
}

async fn symbols(servers: &LspServers, root: &Path, name: &str) {
    let path = root.join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let show = |p: &Path| Some(p.display().to_string());
    let query = Query::new(Operation::DocumentSymbol, &path, name, &text, root);
    let answer = servers.query(query, &show).await.unwrap();
    assert!(answer.contains("No symbols"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_fifty_documents_are_open_the_least_recently_used_closed_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let log = root.join("server.log");
    let files: Vec<String> = (0..MAX_OPEN_DOCUMENTS + 2).map(|i| format!("f{i:02}.txt")).collect();
    for name in &files {
        std::fs::write(root.join(name), format!("{name}\n")).unwrap();
    }
    let servers = LspServers::new(vec![fake(&log)]);
    // f00 is used again after f01, so f01 and f02 are the least recent when room runs out.
    symbols(&servers, &root, &files[0]).await;
    symbols(&servers, &root, &files[1]).await;
    symbols(&servers, &root, &files[2]).await;
    symbols(&servers, &root, &files[0]).await;
    for name in &files[3..] {
        symbols(&servers, &root, name).await;
    }
    assert_eq!(servers.open_documents(&root.join(&files[0]), &root).await, MAX_OPEN_DOCUMENTS);
    // A changed file is sent again as a change, an unchanged one not at all.
    std::fs::write(root.join(&files[0]), "changed\n").unwrap();
    symbols(&servers, &root, &files[0]).await;
    symbols(&servers, &root, &files[5]).await;
    servers.shutdown().await;
    let logged = std::fs::read_to_string(&log).unwrap();
    let count = |what: &str| logged.lines().filter(|l| l.starts_with(what)).count();
    assert_eq!(count("textDocument/didOpen"), MAX_OPEN_DOCUMENTS + 2, "{logged}");
    let closed: Vec<&str> = logged.lines().filter(|l| l.starts_with("textDocument/didClose")).collect();
    assert_eq!(closed.len(), 2, "{logged}");
    assert!(closed[0].ends_with("/f01.txt") && closed[1].ends_with("/f02.txt"), "{closed:?}");
    let changed: Vec<&str> = logged.lines().filter(|l| l.starts_with("textDocument/didChange")).collect();
    assert_eq!(changed.len(), 1, "{logged}");
    assert!(changed[0].ends_with("/f00.txt"));
    assert!(logged.lines().any(|l| l.starts_with("initialized")) && logged.lines().any(|l| l.starts_with("exit")));
}
