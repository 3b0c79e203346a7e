//! Goal commits: the commits that carry `Goal-*` trailers, the active goal's init, and what a
//! commit says (its work, its summary, its criteria).

use std::path::Path;

use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::repo::{CommitInfo, Oid, Repo};
use crate::trailers::{GoalAction, GoalTrailers};

/// A commit that carries `Goal-*` trailers.
#[derive(Debug, Clone)]
pub struct GoalCommit {
    pub info: CommitInfo,
    pub trailers: GoalTrailers,
}

impl GoalCommit {
    pub(super) fn action(&self) -> Option<GoalAction> {
        self.trailers.action
    }

    /// Whether this commit records an iteration (or the init, iteration 0).
    pub(super) fn is_point(&self) -> bool {
        matches!(self.action(), Some(GoalAction::Init | GoalAction::Iterate))
    }
}

/// The `init` commit of the active goal (first parent from HEAD).
pub fn init_commit(repo: &Repo) -> Result<Option<CommitInfo>> {
    let mut restored = false;
    for info in repo.first_parent_walk()? {
        let info = info?;
        match GoalTrailers::read(&info).and_then(|t| t.action) {
            Some(GoalAction::Init) => return Ok(Some(info)),
            // A restore takes back the abandon before it.
            Some(GoalAction::Restore) => restored = true,
            Some(GoalAction::Abandon) if restored => restored = false,
            Some(GoalAction::Done | GoalAction::Abandon) => return Ok(None),
            _ => {}
        }
    }
    Ok(None)
}

pub(super) fn date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// The work a commit describes: its message without the trailers (the `-m` bullets of an
/// iteration commit, which are its Progress Log entry).
pub fn work_text(info: &CommitInfo) -> String {
    match info.message.rfind("\n\nGoal-") {
        Some(at) => info.message[..at].to_string(),
        None => info.message.clone(),
    }
}

/// The summary of an iteration: the first line of work after `goal: iteration N: `.
pub(super) fn summary_of(info: &CommitInfo, action: Option<GoalAction>, goal: &str) -> String {
    if action == Some(GoalAction::Init) {
        return format!("init: {goal}");
    }
    let subject = info.subject().trim_start_matches("goal: ");
    match subject.split_once(": ") {
        Some((head, rest)) if head.starts_with("iteration ") => rest.to_string(),
        _ => subject.to_string(),
    }
}

/// The criteria of the GOAL.md at a commit (the Progress Log is not read).
pub(super) fn criteria_at(repo: &Repo, tree: Oid, goal_rel: &Path) -> Option<GoalFile> {
    repo.file_in_tree(tree, goal_rel)
        .ok()
        .flatten()
        .and_then(|b| GoalFile::parse_head(&b).ok())
}
