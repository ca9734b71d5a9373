// `#[input]` takes only `crate = path`, and a union is no input.
#[toolwright::input(rename = "x")]
pub struct Unknown {
    pub a: u8,
}

#[toolwright::input]
pub union Both {
    pub a: u8,
    pub b: u16,
}

fn main() {}
