//! Abandon the goal: its files deleted in one commit marked `Goal-Status: abandoned`.

use crate::door::Commit;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::repo::Oid;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

/// The goal abandoned, as it was, and the commit that deleted its files.
pub struct Abandoned {
    pub goal: GoalFile,
    pub reason: String,
    pub commit: Oid,
}

/// Abandon the active goal (takes the lock).
pub fn abandon(ws: &Workspace, reason: &str) -> Result<Abandoned> {
    let _lock = ws.lock()?;
    let goal = ws.goal()?;
    abandon_locked(ws, goal, reason)
}

/// Abandon `goal`, the lock already held.
pub fn abandon_locked(ws: &Workspace, goal: GoalFile, reason: &str) -> Result<Abandoned> {
    let commit = abandon_commit(ws, &goal, reason).make(ws, None, &goal)?;
    crate::repo::KeptWorktree::remove(ws.root());
    Ok(Abandoned {
        goal,
        reason: reason.to_string(),
        commit,
    })
}

/// The commit that deletes the goal files (Goal-Status: abandoned).
pub fn abandon_commit(ws: &Workspace, goal: &GoalFile, reason: &str) -> Commit<'static> {
    let mut commit = Commit::new(GoalAction::Abandon, format!("abandon \"{}\"", goal.goal));
    commit.body = vec![format!("Reason: {reason}")];
    commit.status = Some("abandoned");
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    commit
}
