//! Bring back the last abandoned goal of this branch, as it was, in a commit.

use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::repo::{CommitInfo, Oid};
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::Workspace;

/// The goal restored, the commit that had abandoned it, and the restoring commit.
pub struct Restored {
    pub goal: GoalFile,
    pub abandoned_in: Oid,
    pub commit: Oid,
}

/// The abandon commit to undo and the commit before it (its first parent), if any.
fn last_abandoned(ws: &Workspace) -> Result<Option<(CommitInfo, CommitInfo)>> {
    let mut walk = ws.repo.first_parent_walk()?;
    while let Some(info) = walk.next() {
        let info = info?;
        match GoalTrailers::read(&info).and_then(|t| t.action) {
            // The last abandoned goal is back already (and may have been finished since).
            Some(GoalAction::Restore) => return Ok(None),
            Some(GoalAction::Abandon) => {
                return match walk.next() {
                    Some(parent) => Ok(Some((info, parent?))),
                    None => Ok(None),
                };
            }
            _ => {}
        }
    }
    Ok(None)
}

/// Restore the last abandoned goal; refused when a goal is active or none was abandoned since
/// the last restore.
pub fn restore(ws: &Workspace) -> Result<Restored> {
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    if let Some(active) = ws.read_goal(crate::workspace::Part::Whole)? {
        return Err(Error::refused(
            format!("a goal is active: \"{}\"", active.goal),
            "finish it with `goal done` or give it up with `goal abandon`, then run `goal restore`",
        ));
    }
    let nothing = || {
        Error::refused(
            "no abandoned goal to restore on this branch",
            "start a goal with `goal init \"<goal>\" -c \"<criterion>\"`",
        )
    };
    let Some((abandoned, before)) = last_abandoned(ws)? else {
        return Err(nothing());
    };
    let Some(bytes) = ws.repo.file_in_tree(before.tree, &ws.goal_rel)? else {
        return Err(nothing());
    };
    let goal = GoalFile::parse_bytes(&bytes).map_err(|e| Error::Parse {
        path: ws.goal_rel.clone(),
        line: e.line,
        message: e.message,
    })?;
    let mut other = Vec::new();
    for rel in [ws.evidence_rel(), ws.retry_rel()] {
        other.push((rel.clone(), ws.repo.file_in_tree(before.tree, &rel)?));
    }
    let mut commit = Commit::new(GoalAction::Restore, format!("restore \"{}\"", goal.goal));
    commit.body = vec![format!(
        "Restores the goal abandoned in {}.",
        super::short(abandoned.id)
    )];
    commit.other = other;
    let oid = commit.make(ws, Some(&goal), &goal)?;
    Ok(Restored {
        goal,
        abandoned_in: abandoned.id,
        commit: oid,
    })
}
