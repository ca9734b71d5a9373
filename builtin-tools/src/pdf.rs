//! PDFs for `read_file`: their text, page by page, through `lopdf`; whole when short,
//! by `pages` when long, as Claude Code reads them. Bounded in size, pages and text,
//! and a PDF that breaks the parser is an error, never a panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use toolwright_core::ToolError;

/// The largest PDF read (Claude Code's API limit for a document).
pub const MAX_PDF_BYTES: u64 = 20 * 1024 * 1024;
/// A PDF of at most this many pages is read whole.
pub const WHOLE_PAGES: usize = 10;
/// The most pages one call reads.
pub const MAX_PAGES_PER_CALL: usize = 20;
/// Text kept of one page, and of the whole answer.
const MAX_PAGE_CHARS: usize = 50_000;
const MAX_TEXT_CHARS: usize = 256 * 1024;

/// A PDF as read: its text with page markers, and the PDF of the pages read (the
/// file itself when all of them are), for providers that read documents.
pub struct PdfRead {
    /// The header line, then each page's text after a marker.
    pub text: String,
    /// The pages read as a PDF, when it could be written.
    pub pdf: Option<Vec<u8>>,
}

/// The text of the PDF in `bytes`, with a marker before each page: the pages named
/// by `pages` (`"3"`, `"1-5"`, `"1,4,7-9"`), or all of them when it has at most 10.
pub fn read(bytes: &[u8], display: &str, pages: Option<&str>) -> Result<PdfRead, ToolError> {
    let document = catch_unwind(AssertUnwindSafe(|| lopdf::Document::load_mem(bytes)))
        .map_err(|_| ToolError::msg(format!("`{display}` is a PDF the reader cannot parse")))?
        .map_err(|e| ToolError::msg(format!("`{display}` is not a readable PDF: {e}")))?;
    let numbers: Vec<u32> = document.get_pages().keys().copied().collect();
    let total = numbers.len();
    let wanted = match pages {
        Some(spec) => page_list(spec, total)?,
        None if total <= WHOLE_PAGES => numbers.clone(),
        None => {
            return Err(ToolError::msg(format!(
                "`{display}` has {total} pages; a PDF over {WHOLE_PAGES} pages is read by `pages`, at most \
                 {MAX_PAGES_PER_CALL} at a time: call read_file again with `pages: \"1-{MAX_PAGES_PER_CALL}\"`, then the next ones"
            )));
        }
    };
    let mut text = format!("PDF `{display}`: {total} page{}", if total == 1 { "" } else { "s" });
    if wanted.len() < total {
        text.push_str(&format!("; pages {} shown", describe(&wanted)));
    }
    text.push('\n');
    let pdf = if wanted.len() == total { Some(bytes.to_vec()) } else { only_pages(&document, &numbers, &wanted) };
    for &page in &wanted {
        if text.len() > MAX_TEXT_CHARS {
            text.push_str(&format!(
                "\n(the text is over {} KB: read the next pages from {page} with `pages`)\n",
                MAX_TEXT_CHARS / 1024
            ));
            break;
        }
        let extracted = catch_unwind(AssertUnwindSafe(|| document.extract_text(&[page])))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let mut page_text = extracted.trim().to_owned();
        if page_text.chars().count() > MAX_PAGE_CHARS {
            page_text =
                page_text.chars().take(MAX_PAGE_CHARS).collect::<String>() + "\n[page cut: over 50,000 characters]";
        }
        text.push_str(&format!("\n--- page {page} ---\n"));
        if page_text.is_empty() {
            text.push_str("(no text on this page: it may be an image, such as a scan)\n");
        } else {
            text.push_str(&page_text);
            text.push('\n');
        }
    }
    Ok(PdfRead { text, pdf })
}

/// The document with only the `wanted` pages, written anew; `None` if lopdf cannot.
fn only_pages(document: &lopdf::Document, all: &[u32], wanted: &[u32]) -> Option<Vec<u8>> {
    let others: Vec<u32> = all.iter().copied().filter(|p| !wanted.contains(p)).collect();
    catch_unwind(AssertUnwindSafe(|| {
        let mut subset = document.clone();
        subset.delete_pages(&others);
        subset.prune_objects();
        let mut out = Vec::new();
        subset.save_to(&mut out).ok().map(|()| out)
    }))
    .ok()
    .flatten()
    .filter(|out| out.len() as u64 <= MAX_PDF_BYTES)
}

/// `"1-5"`, `"3"`, `"1,4,7-9"` as page numbers within `1..=total`; at most 20.
pub fn page_list(spec: &str, total: usize) -> Result<Vec<u32>, ToolError> {
    let bad = |why: String| ToolError::msg(format!("`pages` `{spec}`: {why}"));
    let mut out: Vec<u32> = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (from, to) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let parse = |s: &str| s.parse::<u32>().map_err(|_| bad(format!("`{s}` is not a page number")));
        let (from, to) = (parse(from)?, parse(to)?);
        if from == 0 || to < from {
            return Err(bad("pages count from 1, and a range goes up (`1-5`)".into()));
        }
        if to as usize > total {
            return Err(bad(format!("the PDF has {total} pages")));
        }
        if (to - from) as usize + out.len() >= MAX_PAGES_PER_CALL {
            return Err(bad(format!("at most {MAX_PAGES_PER_CALL} pages are read per call")));
        }
        out.extend(from..=to);
    }
    if out.is_empty() {
        return Err(bad("name pages, such as `1-5`".into()));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

fn describe(pages: &[u32]) -> String {
    match (pages.first(), pages.last()) {
        (Some(first), Some(last)) if (*last - *first) as usize + 1 == pages.len() => format!("{first}-{last}"),
        _ => pages.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_lists_are_checked() {
        assert_eq!(page_list("1-3", 10).unwrap(), [1, 2, 3]);
        assert_eq!(page_list("4, 1,2", 10).unwrap(), [1, 2, 4]);
        for bad in ["0", "3-1", "x", "1-21", ""] {
            assert!(page_list(bad, 30).is_err(), "{bad}");
        }
        assert!(page_list("11", 10).is_err(), "past the last page");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 0..500 {
            let bytes: Vec<u8> = std::iter::once(b"%PDF-1.4\n".to_vec())
                .flatten()
                .chain((0..len).map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    b"obj endobj << >> [ ] 1 0 R stream\nendstream xref trailer /Pages /Kids 9"[(seed % 63) as usize]
                }))
                .collect();
            let _ = read(&bytes, "fuzz.pdf", None);
        }
    }

    /// A PDF of `pages` pages, each saying its number.
    fn sample(pages: u32) -> Vec<u8> {
        use lopdf::content::{Content, Operation};
        use lopdf::{Document, Object, Stream, dictionary};
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font = doc.add_object(dictionary! {"Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier"});
        let mut kids = Vec::new();
        for n in 1..=pages {
            let operations = vec![
                Operation::new("BT", vec![]),
                Operation::new("Tf", vec!["F1".into(), 12.into()]),
                Operation::new("Td", vec![72.into(), 720.into()]),
                Operation::new("Tj", vec![Object::string_literal(format!("Page {n}."))]),
                Operation::new("ET", vec![]),
            ];
            let stream = doc.add_object(Stream::new(dictionary! {}, Content { operations }.encode().unwrap()));
            kids.push(
                doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages_id, "Contents" => stream}).into(),
            );
        }
        let count = kids.len() as i64;
        let resources = doc.add_object(dictionary! {"Font" => dictionary! {"F1" => font}});
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

    /// A valid PDF with bytes flipped, cut or repeated reaches deeper into the parser
    /// than noise: each is read (whole and by pages, which writes a subset) without
    /// a panic, and what comes back is an error or bounded text.
    #[test]
    fn mutated_pdfs_are_read_or_refused_never_a_panic() {
        let good = sample(12);
        let read_back = read(&good, "ok.pdf", Some("2-3")).unwrap();
        assert!(read_back.text.contains("Page 2.") && read_back.pdf.is_some(), "{}", read_back.text);
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..300 {
            let mut bytes = good.clone();
            match round % 3 {
                0 => {
                    for _ in 0..(1 + next() % 8) {
                        let at = (next() as usize) % bytes.len();
                        bytes[at] = (next() & 0xff) as u8;
                    }
                }
                1 => bytes.truncate((next() as usize) % bytes.len()),
                _ => {
                    let at = (next() as usize) % bytes.len();
                    let end = (at + (next() as usize) % 200).min(bytes.len());
                    let chunk = bytes[at..end].to_vec();
                    bytes.splice(at..at, chunk);
                }
            }
            for pages in [None, Some("2-3")] {
                if let Ok(read) = read(&bytes, "fuzz.pdf", pages) {
                    assert!(read.text.len() <= MAX_TEXT_CHARS + 4 * MAX_PAGE_CHARS);
                    assert!(read.pdf.is_none_or(|pdf| pdf.len() as u64 <= MAX_PDF_BYTES));
                }
            }
        }
    }
}
