use toolwright::prelude::*;

#[derive(serde::Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// Moves to a point.
#[tool]
pub struct MoveTo {
    pub name: String,
    pub target: Point,
}

impl Tool for MoveTo {
    type Output = String;
    async fn call(self, _cx: &ToolContext) -> Result<String, ToolError> {
        Ok(self.name)
    }
}

fn main() {}
