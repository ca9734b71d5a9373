//! PDFs through `read_file` (Claude Code's Read with `pages`): whole up to 10 pages,
//! by `pages` beyond, at most 20 a call, the text page by page; hostile files are
//! refused with a reason.

#[path = "../../tests/common/mod.rs"]
mod common;

use base64::Engine as _;
use common::scripted::{self, Reply};
use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, Stream, dictionary};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

/// A PDF whose page N says "This is page N.".
fn pdf(pages: u32) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier"});
    let resources = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font}});
    let mut kids = Vec::new();
    for n in 1..=pages {
        let content = Content {
            operations: vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 12.into()]),
                Operation::new("Td", vec![72.into(), 720.into()]),
                Operation::new("Tj", vec![Object::string_literal(format!("This is page {n}."))]),
                Operation::new("ET", vec![]),
            ],
        };
        let stream = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id, "Contents" => stream});
        kids.push(page.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => kids, "Count" => count, "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

fn read(dir: &Path, input: Value) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolwright"))
        .args(["call", "Read", &input.to_string(), "--json", "--cwd"])
        .arg(dir)
        .env("HOME", dir)
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text =
        result["content"].as_array().into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>().join("\n");
    (result["is_error"] == true, text)
}

#[test]
fn short_pdfs_are_read_whole_and_long_ones_by_pages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("short.pdf"), pdf(3)).unwrap();
    std::fs::write(dir.path().join("long.pdf"), pdf(30)).unwrap();
    let (error, text) = read(dir.path(), json!({"file_path": "short.pdf"}));
    assert!(!error, "{text}");
    assert!(text.starts_with("PDF `short.pdf`: 3 pages"), "{text}");
    assert!(
        text.contains("--- page 1 ---\nThis is page 1.") && text.contains("--- page 3 ---\nThis is page 3."),
        "{text}"
    );
    let (error, text) = read(dir.path(), json!({"file_path": "long.pdf"}));
    assert!(error && text.contains("has 30 pages") && text.contains("pages: \"1-20\""), "{text}");
    let (error, text) = read(dir.path(), json!({"file_path": "long.pdf", "pages": "21-25"}));
    assert!(!error && text.contains("pages 21-25 shown") && text.contains("This is page 25."), "{text}");
    assert!(!text.contains("This is page 20."), "{text}");
    for bad in ["1-21", "31", "0", "5-2"] {
        let (error, text) = read(dir.path(), json!({"file_path": "long.pdf", "pages": bad}));
        assert!(error && text.contains("`pages`"), "{bad}: {text}");
    }
    let (error, text) = read(dir.path(), json!({"file_path": "short.pdf", "offset": 1, "pages": "1"}));
    assert!(!error, "{text}");
    std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let (error, text) = read(dir.path(), json!({"file_path": "notes.txt", "pages": "1"}));
    assert!(error && text.contains("`pages` is for PDFs"), "{text}");
}

#[test]
fn hostile_pdfs_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let mut truncated = pdf(3);
    truncated.truncate(truncated.len() / 2);
    std::fs::write(dir.path().join("cut.pdf"), truncated).unwrap();
    std::fs::write(dir.path().join("fake.pdf"), "not a pdf at all").unwrap();
    for name in ["cut.pdf", "fake.pdf"] {
        let (error, text) = read(dir.path(), json!({"file_path": name}));
        assert!(error && text.contains(&format!("`{name}`")) && text.contains("PDF"), "{name}: {text}");
    }
    // Over 20 MB: refused unread.
    let big = std::fs::File::create(dir.path().join("big.pdf")).unwrap();
    big.set_len(21 * 1024 * 1024).unwrap();
    let (error, text) = read(dir.path(), json!({"file_path": "big.pdf"}));
    assert!(error && text.contains("over 20 MB"), "{text}");
}

/// In an agent run on Anthropic, the pages read reach the model as a document block
/// holding only those pages, after the line that says which they are.
#[test]
fn anthropic_gets_the_pages_read_as_a_pdf_document() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.pdf"), pdf(12)).unwrap();
    let (url, log) = scripted::serve(|logged| match logged.results().len() {
        0 => Reply::calls(vec![("Read", json!({"file_path": "report.pdf", "pages": "2-3"}))]),
        _ => Reply::text("done"),
    });
    let bin = env!("CARGO_BIN_EXE_toolwright");
    let out = scripted::run_agent(bin, &url, dir.path(), dir.path(), &["--json"], "Summarise pages 2 and 3.");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = log.lock().unwrap();
    let last = logs[1].messages().last().unwrap().clone();
    let result = last["content"].as_array().unwrap().iter().find(|b| b["type"] == "tool_result").unwrap().clone();
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], "PDF `report.pdf`: 12 pages; pages 2-3 shown", "{result}");
    assert_eq!(blocks[1]["type"], "document");
    assert_eq!(blocks[1]["source"]["media_type"], "application/pdf");
    let bytes =
        base64::engine::general_purpose::STANDARD.decode(blocks[1]["source"]["data"].as_str().unwrap()).unwrap();
    let sent = Document::load_mem(&bytes).unwrap();
    assert_eq!(sent.get_pages().len(), 2, "only the pages read");
    assert!(sent.extract_text(&[1]).unwrap().contains("This is page 2."));
    assert!(sent.extract_text(&[2]).unwrap().contains("This is page 3."));
}
