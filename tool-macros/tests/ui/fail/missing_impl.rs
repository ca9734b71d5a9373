use toolwright::prelude::*;

/// Reads a file.
#[tool(read_only)]
pub struct ReadIt {
    pub path: String,
}

fn main() {}
