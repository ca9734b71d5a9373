// Nested types through `#[toolwright::input]`: the derives come from toolwright's
// re-exports, and the local `serde`/`schemars` modules must not be what they use.
#![allow(dead_code)]
use toolwright::prelude::*;

mod serde {}
mod schemars {}

/// A point on the plane.
#[input]
pub struct Point {
    /// Across.
    pub x: i32,
    /// Down.
    pub y: i32,
}

/// How to draw.
#[toolwright::input]
#[serde(rename_all = "snake_case")]
pub enum Style {
    Solid,
    Dashed { gap: u8 },
}

/// Free keys are kept because a field is flattened.
#[input]
pub struct Extras {
    #[serde(flatten)]
    pub rest: std::collections::BTreeMap<std::string::String, u8>,
}

/// Draw a line.
#[tool]
pub struct DrawLine {
    /// Where it starts.
    pub from: Point,
    /// Where it ends.
    pub to: Point,
    /// How it looks.
    pub style: Style,
    /// Anything else.
    pub extras: Option<Extras>,
}

impl Tool for DrawLine {
    type Output = std::string::String;
    async fn call(self, _cx: &ToolContext) -> std::result::Result<std::string::String, ToolError> {
        Ok(format!("{},{} -> {},{}", self.from.x, self.from.y, self.to.x, self.to.y))
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().unwrap();
    let tool = registry.get("draw_line").unwrap();
    let schema = tool.input_schema().to_string();
    assert!(schema.contains("Across."), "{schema}");
    assert!(tool.prepare(br#"{"from":{"x":1,"y":2},"to":{"x":3,"y":4},"style":"solid"}"#).is_ok());
    assert!(tool.prepare(br#"{"from":{"x":1,"y":2},"to":{"x":3,"y":4},"style":{"dashed":{"gap":2}}}"#).is_ok());
    assert!(tool.prepare(br#"{"from":{"x":1,"y":2},"to":{"x":3,"y":4},"style":"solid","extras":{"k":1}}"#).is_ok());
    // A field the model invents inside a nested type is refused, as at the top level.
    let error = tool.prepare(br#"{"from":{"x":1,"y":2,"z":0},"to":{"x":3,"y":4},"style":"solid"}"#).err().unwrap();
    assert!(error.to_string().contains('z'), "{error}");
}
