//! The goal folder's files by name, the witness file, and the one ledger loader (from the working
//! tree or from a tree's bytes): below every rule that reads them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::evidence::{Ledger, WitnessEntry};
use crate::repo::Repo;

/// The evidence ledger and the retry guard's raw state, beside GOAL.md: named where commits are
/// made (the repository layer stages them whatever ignores them).
pub use crate::repo::{EVIDENCE_FILE, RETRY_FILE};
/// The goal file's name in its folder (the default folder is `.agents/goal`).
pub const GOAL_FILE: &str = "GOAL.md";
/// The worktree's lock, under its git folder.
pub const LOCK_FILE: &str = "goal.lock";
/// The Claude Stop hook's count of its blocks, under the git folder.
pub const STOP_STATE_FILE: &str = "goal-stop.json";
/// The stops judged once for several hooks (Cursor's and Claude Code's), under the git folder:
/// a lock and the verdict per stop.
pub const STOPS_DIR: &str = "goal-stops";
/// `goal run`'s marker of a run in flight, under the git folder's `goal/`.
pub const RUN_MARKER_FILE: &str = "run.json";
/// The witness of every record `goal verify` wrote, in the repository's common git dir.
pub const WITNESS_FILE: &str = "goal-witness";
/// The pins a person approved for `goal mcp`, in the repository's common git dir.
pub const APPROVALS_FILE: &str = "goal-approved-pins";
/// A committing command's redo log, in the worktree's git dir.
pub const JOURNAL_FILE: &str = "goal-journal.json";

/// The witness file of `repo` (shared by its worktrees).
pub fn witness_path(repo: &Repo) -> PathBuf {
    repo.common_dir().join(WITNESS_FILE)
}

/// The approvals file of `repo` (shared by its worktrees).
pub fn approvals_path(repo: &Repo) -> PathBuf {
    repo.common_dir().join(APPROVALS_FILE)
}

/// The record hashes in a witness file (none when it does not exist). A line is a JSON entry,
/// or a bare hash (written by earlier versions).
pub fn read_witness(path: &Path) -> HashSet<String> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    if l.starts_with('{') {
                        serde_json::from_str::<WitnessEntry>(l)
                            .map(|e| e.hash)
                            .unwrap_or_default()
                    } else {
                        l.to_string()
                    }
                })
                .filter(|h| !h.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The witness's full entries, in the order they were written (bare-hash lines are skipped).
pub fn read_witness_entries(path: &Path) -> Vec<WitnessEntry> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .filter(|l| l.trim_start().starts_with('{'))
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The one ledger loader: evidence.jsonl's bytes (None: no file, an empty ledger) parsed, and
/// each record checked against `witness` when there is one. `rel` names the file in a parse error.
pub fn ledger(
    bytes: Option<&[u8]>,
    rel: &Path,
    witness: Option<HashSet<String>>,
) -> Result<Ledger> {
    let Some(bytes) = bytes else {
        return Ok(Ledger::default());
    };
    let ledger = Ledger::parse(bytes).map_err(|(line, message)| Error::Parse {
        path: rel.to_path_buf(),
        line,
        message,
    })?;
    Ok(match witness {
        Some(w) => ledger.with_witness(w),
        None => ledger,
    })
}

/// The witness of `repo` when it has one (a clone where `goal verify` never ran has none).
pub fn witness_if_any(repo: &Repo) -> Option<HashSet<String>> {
    let path = witness_path(repo);
    path.exists().then(|| read_witness(&path))
}

pub use crate::error::broken_ledger_hint;
