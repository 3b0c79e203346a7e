//! Reading goals back from git history: goal commits, stagnation points, and the audit rows of
//! `goal log`.

pub mod base;
mod commits;
mod findings;
mod rows;
mod stagnation;
mod walk;

pub use commits::{GoalCommit, init_commit, work_text};
pub use findings::{Cases, commit_findings};
pub use rows::{
    MaterialEntry, Row, RunIteration, RunSummary, Sink, WeakenedEntry, runs, sparkline,
    status_text, usage_text,
};
pub use stagnation::{stagnation, stagnation_with};
pub use walk::{material_changes, walk_goals};
