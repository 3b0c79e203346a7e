//! The weakening findings of a goal's whole diff (base → its last commit) over the test surface,
//! and which of them `goal done --confirm` recorded or must refuse.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::pin;
use crate::repo::{Oid, Repo};

/// A weakening finding of a goal, as audit and report show it.
#[derive(Debug, Clone, Serialize)]
pub struct WeakenedFinding {
    #[serde(flatten)]
    pub finding: crate::surface::weaken::Finding,
    /// A `Goal-Tests-Weakened` trailer of the goal records it (`goal done --confirm`).
    pub confirmed: bool,
    /// It refuses `goal done` without `--confirm`: a `selection-changed`, or a `test-removed`,
    /// `skip-added`, `assertion-free` or `import-redirected` in a test a pin runs.
    pub refuses: bool,
}

/// The weakening findings of a goal whose base is the commit `base` (None: an unborn branch, the
/// empty tree) and whose last commit has tree `last`, outside the goal folder; `confirmed` holds
/// the values of the goal's `Goal-Tests-Weakened` trailers. Also the files that did not parse.
pub fn goal_findings(
    repo: &Repo,
    goal_dir: &Path,
    base: Option<Oid>,
    last: Oid,
    goal: &GoalFile,
    confirmed: &[String],
) -> Result<(
    Vec<WeakenedFinding>,
    Vec<crate::surface::weaken::Unreadable>,
)> {
    let surface = crate::surface::surface_of(&goal.settings)?;
    let base_tree = match base {
        Some(commit) => repo.commit_info(commit)?.tree,
        None => repo.empty_tree()?,
    };
    // (`tree_without` only computes ids: the goal folder is dropped from the changes instead.)
    let found = crate::surface::red::goal_findings(repo, base_tree, last, &surface, &|path| {
        Path::new(path).starts_with(goal_dir)
    })?;
    let pins: Vec<String> = goal
        .criteria
        .iter()
        .filter_map(|c| pin::parse(&c.text).and_then(|p| p.ok()))
        .map(|p| p.command)
        .collect();
    let findings = found
        .findings
        .into_iter()
        .map(|f| WeakenedFinding {
            confirmed: confirmed.iter().any(|v| v.trim() == f.trailer_value()),
            refuses: crate::surface::judge::refuses_done(&f, &pins),
            finding: f,
        })
        .collect();
    Ok((findings, found.unreadable))
}
