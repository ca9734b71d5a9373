//! Where agents run: the agent loop and the model clients ([`agent`]), the subagent
//! runtime ([`subagents`]) and the skills runtime ([`skills`]), beside the
//! definitions they read (`toolwright-agents`). Use them through the facade,
//! `toolwright`, which keeps these paths (`toolwright::agent`,
//! `toolwright::subagents`, `toolwright::skills`).
//!
//! Why a crate of its own: "where do agents live" has one answer, and the loop, the
//! children it starts and the session state they share (plan mode, schedules, the
//! task list) are one concern, apart from the facade's re-exports.

// The paths the modules were written with, as the facade has them.
#[cfg(feature = "subagents")]
#[allow(unused_imports)]
pub(crate) use toolwright_builtin as builtin;
#[allow(unused_imports)]
pub(crate) use toolwright_core::*;
#[cfg(feature = "subagents")]
pub(crate) use toolwright_permissions as rules;

pub mod agent;
#[cfg(feature = "subagents")]
pub mod skills;
#[cfg(feature = "subagents")]
pub mod subagents;
