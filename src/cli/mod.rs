//! The `toolwright` command's subcommands.

pub mod agent;
pub mod call;
pub mod check;
#[cfg(feature = "mcp")]
pub mod mounts;
pub mod replay;
pub mod sample;
pub mod stop;
pub mod trace;
pub mod turn;
pub mod wire;
