//! What a reviewer can check of a goal from git alone: the goals a revision range holds, the
//! checks on each goal commit (trailers, evidence chain, proven ticks, material and hand-made
//! changes), and each criterion's deciding record. `goal audit` and `goal report` read it;
//! [`replay`] runs the records again.

mod found;
mod goal;
mod range;
pub mod replay;
pub mod review;
mod weakened;

pub use found::{CommitCheck, Confirmation, CriterionAudit, GoalAudit, Problem, RunOutcome};
pub use goal::audit_goal;
pub(crate) use range::git_lines;
pub use range::{Span, goal_at, goals_in};
pub use weakened::{WeakenedFinding, goal_findings};

use std::collections::HashSet;
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::GoalFile;
use crate::repo::{Oid, Repo};
use crate::workspace::Workspace;

/// The repository's paths and witness, as the audit needs them.
pub struct Scope<'a> {
    pub repo: &'a Repo,
    pub goal_dir: PathBuf,
    pub goal_rel: PathBuf,
    pub evidence_rel: PathBuf,
    /// This clone's witness; None in a clone where `goal verify` never ran (a fresh one).
    pub witness: Option<HashSet<String>>,
}

impl<'a> Scope<'a> {
    pub fn of(ws: &'a Workspace) -> Scope<'a> {
        Scope {
            repo: &ws.repo,
            goal_dir: ws.goal_dir.clone(),
            goal_rel: ws.goal_rel.clone(),
            evidence_rel: ws.evidence_rel(),
            witness: crate::store::witness_if_any(&ws.repo),
        }
    }

    /// The ledger committed in `tree` (none: empty). Err inside: why it does not parse, which
    /// the audit reports as a problem of that commit and goes on.
    fn ledger_at(&self, tree: Oid) -> Result<std::result::Result<Ledger, String>> {
        Ok(match self.repo.file_in_tree(tree, &self.evidence_rel)? {
            None => Ok(Ledger::default()),
            Some(bytes) => {
                match crate::store::ledger(Some(&bytes), &self.evidence_rel, self.witness.clone()) {
                    Ok(l) => Ok(l),
                    Err(Error::Parse {
                        path,
                        line,
                        message,
                    }) => Err(format!("{}:{line}: {message}", path.display())),
                    Err(e) => return Err(e),
                }
            }
        })
    }

    /// GOAL.md as committed in `tree`, if there. Err inside: why it does not parse, a problem of
    /// that commit the audit reports and goes on.
    fn goal_at(&self, tree: Oid) -> Result<Option<std::result::Result<GoalFile, String>>> {
        Ok(self.repo.file_in_tree(tree, &self.goal_rel)?.map(|bytes| {
            GoalFile::parse_bytes(&bytes)
                .map_err(|e| format!("{}:{}: {}", self.goal_rel.display(), e.line, e.message))
        }))
    }
}

fn short(id: &str) -> &str {
    crate::repo::short_id(id)
}

/// The commit of the goal whose tree (without the goal folder) is the record's: the commit
/// that ticked the criterion first, then any other, oldest first.
pub fn commit_for(goal: &GoalAudit, record: &Record, prefer: Option<Oid>) -> Option<Oid> {
    goal.trees
        .iter()
        .find(|(c, t)| Some(*c) == prefer && record.on_tree(t))
        .or_else(|| goal.trees.iter().find(|(_, t)| record.on_tree(t)))
        .map(|(c, _)| *c)
}

/// The short id a person reads.
pub fn short_id(id: &str) -> String {
    short(id).to_string()
}
