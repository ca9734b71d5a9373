use toolwright::prelude::*;

// No `#[toolwright::input]`: the crate has neither serde nor schemars.
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// Moves to a point.
#[tool]
pub struct MoveTo {
    pub target: Point,
}

impl Tool for MoveTo {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(format!("{}", self.target.x))
    }
}

fn main() {}
