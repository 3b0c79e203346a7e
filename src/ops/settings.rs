//! The settings that judge a goal are GOAL.md's: read from its frontmatter, with a warning when
//! git config says otherwise (its value is not used: one local `git config goal.testsOnly true`
//! must not quietly change what counts as a test).

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::Result;
use crate::goal_file::{GoalFile, Settings};
use crate::surface::Surface;
use crate::workspace::Workspace;

/// Whether this process has warned already (each command warns once).
static WARNED: AtomicBool = AtomicBool::new(false);

/// The goal's settings (GOAL.md's), after warning on stderr about each git config key that
/// disagrees with them.
pub fn of_goal(ws: &Workspace, goal: &GoalFile) -> Settings {
    warn_disagreeing(&ws.repo, &goal.settings);
    goal.settings.clone()
}

/// The goal's test surface; a glob of GOAL.md's `tests:` that does not parse is a usage error.
pub fn surface(ws: &Workspace, goal: &GoalFile) -> Result<Surface> {
    surface_of(&of_goal(ws, goal))
}

pub use crate::surface::surface_of;

/// Warn (once a process) about each git config setting that disagrees with GOAL.md's.
pub fn warn_disagreeing(repo: &crate::repo::Repo, settings: &Settings) {
    let values = crate::config::goal_setting_values(repo);
    let disagree = crate::config::disagreeing(&values, settings);
    if disagree.is_empty() || WARNED.swap(true, Ordering::SeqCst) {
        return;
    }
    for (key, name, git, ours) in disagree {
        crate::context::warn_line(format!(
            "goal: warning: git config {key} is `{git}`, but GOAL.md says `{name}: {ours}`: GOAL.md's is used (the settings that judge a goal travel with it; a person changes them with `goal criteria surface … --confirm`, or remove the git config with `git config --unset-all {key}`)"
        ));
    }
}
