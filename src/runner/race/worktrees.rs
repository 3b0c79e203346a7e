//! The racers' worktrees: where each goes, making them (undone if the race cannot start), why
//! one must stay, its turn logs moved out before it goes, and the race folder removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use super::Seat;
use crate::error::{Error, Result};
use crate::repo::worktree::{head_of, uncommitted};
use crate::repo::{Oid, Repo};
use crate::runner::agent::INTERRUPTS;

/// Where a racer's worktree goes: `<git common dir>/goal/race/<branch without goal/>`, inside the
/// repository's own folder, out of every tool's way in the main worktree.
pub fn worktree_path(common_dir: &Path, branch: &str) -> PathBuf {
    common_dir
        .join("goal")
        .join("race")
        .join(branch.strip_prefix("goal/").unwrap_or(branch))
}

/// Make each seat's worktree and branch at `start`; when one cannot be made, or Ctrl-C comes,
/// the ones made so far are undone.
pub(super) fn make(repo: &Repo, seats: &[Seat], start: Oid) -> Result<Vec<(PathBuf, String)>> {
    let common = repo.common_dir();
    let mut made: Vec<(PathBuf, String)> = Vec::new();
    for seat in seats {
        let path = worktree_path(common, &seat.branch);
        if let Some(parent) = path.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            roll_back(repo, &made);
            return Err(Error::io("cannot create the racers' folder", parent)(e));
        }
        let added = repo.add_worktree(&path, &seat.branch, start);
        if INTERRUPTS.load(Ordering::SeqCst) > 0 {
            if added.is_ok() {
                made.push((path, seat.branch.clone()));
            }
            roll_back(repo, &made);
            return Err(Error::Interrupted {
                signal: "SIGINT",
                code: 130,
            });
        }
        if let Err(e) = added {
            roll_back(repo, &made);
            return Err(e);
        }
        made.push((path, seat.branch.clone()));
    }
    Ok(made)
}

/// Undo the worktrees and branches made so far (nothing ran in them yet).
fn roll_back(repo: &Repo, made: &[(PathBuf, String)]) {
    for (path, branch) in made.iter().rev() {
        let _ = repo.remove_worktree(path, true);
        let _ = repo.delete_branch(branch);
    }
    remove_race_dir(repo.common_dir());
}

pub(super) fn remove_race_dir(common_dir: &Path) {
    // Only when empty: a kept worktree stays where the summary says.
    let _ = std::fs::remove_dir(common_dir.join("goal").join("race"));
}

/// Move a worktree's turn logs (`<its git dir>/goal/runs/<run>`) to the repository's own.
pub(super) fn keep_logs(from: &Path, to: &Path) {
    if from == to {
        return;
    }
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    let _ = std::fs::create_dir_all(to);
    for entry in entries.flatten() {
        let dest = to.join(entry.file_name());
        if !dest.exists() {
            let _ = std::fs::rename(entry.path(), dest);
        }
    }
}

/// Why a racer's worktree must stay (None: it may go): `--keep-worktrees`, uncommitted work, or
/// a HEAD on no branch (its commits would be left on nothing).
pub(super) fn keep_reason(repo: &Repo, worktree: &Path, keep: bool) -> Option<String> {
    if keep {
        return Some("--keep-worktrees".into());
    }
    if !worktree.exists() {
        return Some("it is gone already".into());
    }
    match uncommitted(worktree) {
        Ok(paths) if !paths.is_empty() => {
            return Some(format!(
                "it holds uncommitted work ({} path(s); see `git -C {} status`)",
                paths.len(),
                worktree.display()
            ));
        }
        Ok(_) => {}
        Err(e) => return Some(e.to_string()),
    }
    match head_of(worktree) {
        Ok(Some(head)) => match repo.on_a_branch(head) {
            Ok(true) => None,
            Ok(false) => Some(format!(
                "its HEAD {} is on no branch (`git -C {} switch -c <name>` keeps it)",
                crate::ops::short(head),
                worktree.display()
            )),
            Err(e) => Some(e.to_string()),
        },
        Ok(None) => None,
        Err(e) => Some(e.to_string()),
    }
}
