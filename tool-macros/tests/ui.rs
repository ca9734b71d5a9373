//! Compile-time behaviour of `#[tool]`: every promised error has a `fail` case with
//! its `.stderr` snapshot, and every accepted form a `pass` case (which also runs).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
