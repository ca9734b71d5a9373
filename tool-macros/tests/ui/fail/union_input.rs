use toolwright::prelude::*;

/// Bits.
#[tool]
pub union Bits {
    pub a: u32,
    pub b: f32,
}

fn main() {}
