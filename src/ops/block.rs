//! Block the goal with a reason (a `## Blocked` section), and resume it.

use crate::context::now_rfc3339;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, Status};
use crate::repo::Oid;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

/// The goal after a block or a resume, and the commit.
pub struct Changed {
    pub goal: GoalFile,
    pub commit: Oid,
}

/// Mark the goal blocked for `reason` (trimmed; not empty).
pub fn block(ws: &Workspace, reason: &str) -> Result<Changed> {
    ws.repo.ensure_idle()?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(Error::usage(
            "the reason is empty",
            "goal block --reason \"<what blocks it>\"",
        ));
    }
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if goal.status == Status::Complete {
        return Err(Error::refused(
            "the goal is complete: nothing to block",
            "finish it with `goal done`",
        ));
    }
    goal.set_blocked(reason);
    goal.set_status(Status::Blocked);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(GoalAction::Block, format!("block: {reason}"));
    commit.body = vec![format!("Reason: {reason}")];
    let oid = commit.make(ws, Some(&goal), &goal)?;
    Ok(Changed { goal, commit: oid })
}

/// Set a blocked (or complete) goal back to in-progress, in a fresh retry episode.
pub fn resume(ws: &Workspace) -> Result<Changed> {
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if goal.status == Status::InProgress {
        return Err(Error::refused(
            format!(
                "the goal is {}, not blocked: nothing to resume",
                goal.status
            ),
            "see `goal status`",
        ));
    }
    goal.clear_blocked();
    goal.set_status(Status::InProgress);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(GoalAction::Resume, "resume");
    // A resumed goal starts a fresh retry episode.
    commit.new_retry_episode(ws);
    let oid = commit.make(ws, Some(&goal), &goal)?;
    Ok(Changed { goal, commit: oid })
}
