//! The ledger: every record of an evidence.jsonl with whether its chain link verifies, judged
//! against the witness — whether a criterion is proven on a tree, and why not.

use super::chain::content_hash;
use super::{Record, WitnessEntry};
use crate::pin;

/// All records of an evidence.jsonl, in order, with whether each line's hash verifies.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    pub records: Vec<Record>,
    /// For each record: Some(reason) when its hash or chain link is broken.
    broken: Vec<Option<String>>,
    /// The hashes `goal verify` wrote to this repository's witness file; when set, a record
    /// outside it proves nothing (a line written by hand, or brought from another clone).
    witness: Option<std::collections::HashSet<String>>,
    /// Witnessed records that followed a record of the file and are no longer in it.
    removed: Vec<WitnessEntry>,
    /// Each witnessed hash's position in the witness (the order runs happened in this clone).
    order: std::collections::HashMap<String, usize>,
    /// The hash of the last line (a record or a merge line): what a new record chains to.
    head: String,
    /// A merge line that does not verify.
    merge_problem: Option<String>,
}

impl Ledger {
    /// Parse evidence.jsonl. Malformed lines are an error `(line, message)`; a broken hash chain
    /// is not (it is reported by `verify_chain`, so the audit can show it).
    pub fn parse(bytes: &[u8]) -> Result<Ledger, (usize, String)> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            (
                line,
                "invalid UTF-8: expected one JSON object a line".to_string(),
            )
        })?;
        let mut ledger = Ledger::default();
        let mut prev = String::new();
        // Every hash seen so far ("" is where a chain starts): where a branch's records fork.
        let mut seen: std::collections::HashSet<String> = std::iter::once(String::new()).collect();
        // Records that start the other side of a merge: (index, the tip they fork beside),
        // waiting for the merge line that joins them.
        let mut forks: Vec<(usize, String)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let value: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| (i + 1, format!("not a JSON object: {e}")))?;
            let serde_json::Value::Object(object) = &value else {
                return Err((i + 1, "expected a JSON object".into()));
            };
            if object.get("kind").and_then(|k| k.as_str()) == Some("merge") {
                let hash = content_hash(object);
                let field = |k: &str| object.get(k).and_then(|v| v.as_str()).unwrap_or("");
                let parents: Vec<&str> = object
                    .get("parents")
                    .and_then(|p| p.as_array())
                    .map(|p| p.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                let joined = match parents.as_slice() {
                    [ours, theirs]
                        if field("hash") == hash
                            && hash.starts_with(field("id"))
                            && field("id").len() >= 8
                            && field("prev") == prev
                            && *theirs == prev =>
                    {
                        forks.iter().rposition(|(_, tip)| tip == ours)
                    }
                    _ => None,
                };
                match joined {
                    Some(at) => {
                        let (index, _) = forks.remove(at);
                        ledger.broken[index] = None;
                    }
                    None => {
                        ledger.merge_problem.get_or_insert(format!(
                            "the merge line {} (line {}) does not join the two sides before it",
                            field("id"),
                            i + 1
                        ));
                    }
                }
                prev = hash;
                seen.insert(prev.clone());
                continue;
            }
            let record: Record = serde_json::from_value(value.clone())
                .map_err(|e| (i + 1, format!("not an evidence record: {e}")))?;
            let hash = content_hash(object);
            let broken = if hash != record.hash
                || !record.hash.starts_with(&record.id)
                || record.id.len() < 8
            {
                Some(format!(
                    "record {} (line {}) was changed after it was written",
                    record.id,
                    i + 1
                ))
            } else if record.prev != prev && seen.contains(&record.prev) {
                // The first record of the other side of a merge: fine once a merge line joins it.
                forks.push((ledger.records.len(), prev.clone()));
                Some(format!(
                    "record {} (line {}) does not follow the record before it, and no merge line joins it",
                    record.id,
                    i + 1
                ))
            } else if record.prev != prev {
                Some(format!(
                    "record {} (line {}) does not follow the record before it (a line was removed, reordered or inserted)",
                    record.id,
                    i + 1
                ))
            } else {
                None
            };
            prev = record.hash.clone();
            seen.insert(prev.clone());
            ledger.broken.push(broken);
            ledger.records.push(record);
        }
        ledger.head = prev;
        Ok(ledger)
    }

    /// Judge records against the witness: only hashes listed there can prove anything.
    pub fn with_witness(mut self, hashes: std::collections::HashSet<String>) -> Ledger {
        self.witness = Some(hashes);
        self
    }

    /// Find the witnessed records that followed a record of this ledger and are gone from it
    /// (lines deleted from the file). Only for the working ledger: in history, later records
    /// are simply later.
    pub fn with_removed_tail(mut self, entries: &[WitnessEntry]) -> Ledger {
        let mut reachable: std::collections::HashSet<String> =
            self.records.iter().map(|r| r.hash.clone()).collect();
        let present = reachable.clone();
        let mut removed = Vec::new();
        // Witness order is the order runs happened in this clone; a successor comes after the
        // record it follows, so one pass finds every removed descendant.
        for (i, e) in entries.iter().enumerate() {
            self.order.insert(e.hash.clone(), i);
            if !present.contains(&e.hash) && !e.prev.is_empty() && reachable.contains(&e.prev) {
                reachable.insert(e.hash.clone());
                removed.push(e.clone());
            }
        }
        self.removed = removed;
        self
    }

    /// Witnessed records removed from the end of the file.
    pub fn removed(&self) -> &[WitnessEntry] {
        &self.removed
    }

    fn witnessed(&self, record: &Record) -> bool {
        self.witness
            .as_ref()
            .is_none_or(|w| w.contains(&record.hash))
    }

    /// Whether `record` counts at all: witnessed in this clone and its hash verifies.
    pub fn counts(&self, record: &Record) -> bool {
        self.witnessed(record) && !self.is_broken(&record.id)
    }

    /// Whether `record` names criterion `number` with the same requirement as `text`.
    pub fn names_criterion(&self, record: &Record, number: usize, text: &str) -> bool {
        record.names(number, text)
    }

    /// The hash a new record must chain to.
    pub fn head_hash(&self) -> String {
        self.head.clone()
    }

    /// The first broken link of the chain, if any.
    pub fn verify_chain(&self) -> Result<(), String> {
        match self
            .broken
            .iter()
            .flatten()
            .next()
            .or(self.merge_problem.as_ref())
        {
            Some(reason) => Err(reason.clone()),
            None => Ok(()),
        }
    }

    pub fn is_broken(&self, id: &str) -> bool {
        self.records
            .iter()
            .zip(&self.broken)
            .any(|(r, b)| r.id == id && b.is_some())
    }

    pub fn find(&self, id: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.id == id)
    }

    /// How the ledger judges criterion `number` (with `text`) on `tree`: the latest witnessed
    /// record naming it on that tree decides; a pinned criterion counts only its pin's runs.
    pub fn judge(&self, number: usize, text: &str, tree: &str) -> Judgement<'_> {
        let pin = pin::argv(text);
        // A guard's pin that prints no test summary (a linter) is check evidence without --check.
        let guard = pin::kind(text) == Some(pin::Kind::Guard);
        // Red runs and a guard's base runs are on other trees: they never prove the criterion.
        let naming: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| r.names(number, text) && r.on_working_code())
            .collect();
        // A pin runs at the worktree root: the same command run elsewhere is another command.
        let (pinned, other): (Vec<&Record>, Vec<&Record>) = naming.iter().partition(|r| {
            pin.as_ref()
                .is_none_or(|p| *p == r.argv && r.cwd.is_empty())
        });
        let counted = |r: &Record| self.witnessed(r) || self.is_broken(&r.id);
        let latest = pinned.iter().rev().find(|r| r.on_tree(tree) && counted(r));
        // A removed line that named it on this tree, run after the latest line still there,
        // would have decided: say so rather than let an older result decide.
        let latest_at = latest.and_then(|r| self.order.get(&r.hash).copied());
        if let Some(gone) = self.removed.iter().rev().find(|e| {
            e.names(number, text)
                && e.on_tree(tree)
                && pin
                    .as_ref()
                    .is_none_or(|p| *p == e.argv && e.cwd.is_empty())
                && self.order.get(&e.hash).copied() > latest_at
        }) {
            return Judgement::Removed {
                id: gone.hash[..12.min(gone.hash.len())].to_string(),
                argv: gone.argv.clone(),
                cwd: gone.cwd.clone(),
            };
        }
        if let Some(latest) = latest {
            if self.is_broken(&latest.id) {
                return Judgement::Failing(
                    latest,
                    format!(
                        "evidence {} does not verify (evidence.jsonl was edited)",
                        latest.id
                    ),
                );
            }
            return if latest.proves() || (guard && latest.passes()) {
                Judgement::Proven(latest)
            } else {
                Judgement::Failing(latest, latest.failure_reason())
            };
        }
        let rerun = match &pin {
            Some(_) if self.pin_runs_as_check(number, text) => {
                format!("goal verify --check -c {number}")
            }
            Some(_) => format!("goal verify -c {number}"),
            None => format!("goal verify -c {number} -- <test command>"),
        };
        if let Some(forged) = pinned.iter().rev().find(|r| r.on_tree(tree)) {
            return Judgement::Open(format!(
                "evidence {} was not recorded by `goal verify` in this repository (written by hand, or copied from another clone); run `{rerun}` here",
                forged.id
            ));
        }
        let witnessed = || {
            pinned
                .iter()
                .rev()
                .filter(|r| self.witnessed(r) && !self.is_broken(&r.id))
        };
        if let Some(passing) = witnessed().find(|r| r.proves() || (guard && r.passes())) {
            return Judgement::Stale(passing);
        }
        if let (Some(pin), Some(wrong)) = (&pin, other.iter().rev().find(|r| r.on_tree(tree))) {
            let place = if wrong.cwd.is_empty() {
                String::new()
            } else {
                format!(" in {}", wrong.cwd)
            };
            return Judgement::Open(format!(
                "evidence {} ran `{}`{place}, but the criterion is pinned to `{}` at the worktree root: only its pin proves it; run `{rerun}`",
                wrong.id,
                pin::render(&wrong.argv),
                pin::render(pin)
            ));
        }
        if let Some(last) = witnessed().next() {
            return Judgement::Open(format!(
                "the last evidence {} failed, on another tree; run `{rerun}`",
                last.id
            ));
        }
        Judgement::Open(format!("no evidence names it; run `{rerun}`"))
    }

    /// The record that proves criterion `number` (with `text`) on `tree`; Err says why nothing
    /// proves it.
    pub fn proof(&self, number: usize, text: &str, tree: &str) -> Result<&Record, String> {
        match self.judge(number, text, tree) {
            Judgement::Proven(record) => Ok(record),
            Judgement::Stale(record) => Err(format!(
                "stale: evidence {} was recorded on another tree (the code changed since); verify again",
                record.id
            )),
            Judgement::Removed { id, .. } => Err(removed_reason(&id)),
            Judgement::Failing(_, why) | Judgement::Open(why) => Err(why),
        }
    }

    /// Whether criterion `number`'s pin was last proven as a check (`goal verify --check`: a
    /// linter, a type checker): then plain `goal verify` runs it as one again, and every hint for
    /// it says `--check`. False for an unpinned criterion.
    pub fn pin_runs_as_check(&self, number: usize, text: &str) -> bool {
        let Some(pin) = pin::argv(text) else {
            return false;
        };
        // A guard runs as a check without being told (no `--check` in its hints).
        if pin::kind(text) == Some(pin::Kind::Guard) {
            return false;
        }
        self.records
            .iter()
            .rev()
            .filter(|r| {
                r.names(number, text) && r.argv == pin && r.cwd.is_empty() && r.on_working_code()
            })
            .find(|r| r.passes() && self.witnessed(r) && !self.is_broken(&r.id))
            .is_some_and(|r| r.check)
    }

    /// The last counted `mutants` record (§20), as shown: whether it was made on `tree`.
    pub fn mutation_view(&self, tree: &str) -> Option<crate::mutants::MutationView> {
        let record = self
            .records
            .iter()
            .rev()
            .find(|r| r.mutants.is_some() && self.counts(r))?;
        Some(crate::mutants::MutationView {
            record: record.id.clone(),
            tree: record.tree.clone(),
            current: record.on_tree(tree),
            result: record.mutants.clone()?,
        })
    }

    /// Whether any passing *test* evidence exists on `tree`.
    pub fn has_passing_test(&self, tree: &str) -> bool {
        self.records.iter().any(|r| {
            r.on_tree(tree)
                && r.on_working_code()
                && r.is_test()
                && r.passes()
                && !self.is_broken(&r.id)
                && self.witnessed(r)
        })
    }
}

/// The ledger's verdict on one criterion.
#[derive(Debug, Clone)]
pub enum Judgement<'a> {
    /// The latest witnessed record on this tree passes.
    Proven(&'a Record),
    /// Passing evidence exists, but on another tree: the code changed since.
    Stale(&'a Record),
    /// The latest record on this tree fails (or does not verify); why.
    Failing(&'a Record, String),
    /// No usable evidence; why.
    Open(String),
    /// The latest run naming it on this tree was removed from evidence.jsonl.
    Removed {
        id: String,
        argv: Vec<String>,
        cwd: String,
    },
}

/// Why a removed record leaves a criterion unproven.
pub fn removed_reason(id: &str) -> String {
    format!(
        "evidence {id}, the latest run naming it on this code, was removed from evidence.jsonl (it is in this clone's witness); an older result cannot decide"
    )
}
