//! The example's binary runs and says what its source promises.

#[test]
fn nested_types_render_and_parse_with_only_toolwright() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nested-input")).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // The nested types' doc comments reached the schema.
    assert!(stdout.contains("Pixels from the left edge."), "{stdout}");
    assert!(stdout.contains("The gap between dashes, in pixels."), "{stdout}");
    assert!(stdout.contains("good input: parses"), "{stdout}");
    // deny_unknown_fields reached the nested struct: the invented `z` is named.
    let refused = stdout.lines().find(|l| l.starts_with("invented field:")).unwrap();
    assert!(refused.contains("unknown field `z`"), "{refused}");
}
