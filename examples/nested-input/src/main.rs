//! Nested input types with toolwright as the only dependency: `#[toolwright::input]`
//! derives what serde and schemars would, through toolwright's own re-exports.
//!
//! Run: `cargo run -p toolwright-example-nested-input`

use toolwright::prelude::*;

/// A point on the canvas.
#[input]
pub struct Point {
    /// Pixels from the left edge.
    pub x: u32,
    /// Pixels from the top edge.
    pub y: u32,
}

/// How the line is drawn.
#[input]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Stroke {
    /// A continuous line.
    Solid,
    /// A dashed line.
    Dashed {
        /// The gap between dashes, in pixels.
        gap: u8,
    },
}

/// Draw a straight line on the canvas.
#[tool(read_only, concurrency_safe)]
pub struct DrawLine {
    /// Where the line starts.
    pub from: Point,
    /// Where the line ends.
    pub to: Point,
    /// How it is drawn.
    pub stroke: Stroke,
}

impl Tool for DrawLine {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        let stroke = match self.stroke {
            Stroke::Solid => "solid".to_owned(),
            Stroke::Dashed { gap } => format!("dashed every {gap}px"),
        };
        Ok(format!("{},{} -> {},{} ({stroke})", self.from.x, self.from.y, self.to.x, self.to.y))
    }
}

fn main() {
    let registry = toolwright::Registry::from_inventory().expect("one tool, a valid name");
    let tool = registry.get("draw_line").expect("registered by #[tool]");
    let definition = registry.definition("draw_line", Provider::ANTHROPIC).expect("linked").expect("renders");
    println!("anthropic: {definition}");
    let good = br#"{"from":{"x":0,"y":0},"to":{"x":10,"y":5},"stroke":{"kind":"dashed","gap":2}}"#;
    println!("good input: {}", if tool.prepare(good).is_ok() { "parses" } else { "refused" });
    let invented = br#"{"from":{"x":0,"y":0,"z":9},"to":{"x":10,"y":5},"stroke":{"kind":"solid"}}"#;
    match tool.prepare(invented) {
        Ok(_) => println!("invented field: accepted"),
        Err(error) => println!("invented field: {error}"),
    }
}
