//! What confinement costs: opening a file through the workspace root's handle
//! (`toolwright_builtin::confined::Root::read`: `openat2` beneath the root, `fstat`,
//! and the descriptor's path checked) against a plain `File::open` and `fstat` of the
//! same file, in alternating blocks in one process (target: at most 1.5x).
//!
//! Run: `cargo bench --bench confined_open`. Results: BENCHMARKS.md.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolwright::builtin::confined::Root;

fn opens(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root_path = dir.path().canonicalize().expect("a canonical path");
    std::fs::create_dir_all(root_path.join("src/module")).expect("a directory");
    let file = root_path.join("src/module/lib.rs");
    std::fs::write(&file, "fn main() {}\n").expect("a file");
    let root = Root::open(&root_path, false).expect("the root's handle");
    let mut group = c.benchmark_group("open_a_file");
    group.bench_function("plain_open", |b| {
        b.iter(|| {
            let opened = std::fs::File::open(black_box(&file)).expect("open");
            black_box(opened.metadata().expect("fstat").len())
        })
    });
    group.bench_function("confined_open", |b| {
        b.iter(|| {
            let (opened, meta) = root.read(black_box(&file), "src/module/lib.rs").expect("open");
            black_box((opened, meta.len()))
        })
    });
    group.finish();
}

criterion_group!(benches, opens);
criterion_main!(benches);
