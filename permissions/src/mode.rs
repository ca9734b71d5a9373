//! Claude Code's permission modes: defined beside the tools (`toolwright_core::mode`),
//! so that a tool can switch them; here at the paths they always had.

pub use toolwright_core::mode::{Mode, ModeOverride, PlanMode};
