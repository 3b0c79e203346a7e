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
        let text = utf8_text(bytes)?;
        let mut chain = ChainWalk::new();
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
                chain.merge_line(object, i + 1);
                continue;
            }
            let record: Record = serde_json::from_value(value.clone())
                .map_err(|e| (i + 1, format!("not an evidence record: {e}")))?;
            chain.record_line(record, object, i + 1);
        }
        Ok(chain.finish())
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
        let asked = Asked {
            number,
            text,
            tree,
            pin: pin::argv(text),
            // A guard's pin that prints no test summary (a linter) is check evidence without
            // --check.
            guard: pin::kind(text) == Some(pin::Kind::Guard),
        };
        // Red runs and a guard's base runs are on other trees: they never prove the criterion.
        let naming: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| r.names(number, text) && r.on_working_code())
            .collect();
        // A pin runs at the worktree root: the same command run elsewhere is another command.
        let (pinned, other): (Vec<&Record>, Vec<&Record>) =
            naming.iter().partition(|r| asked.pin_ran(&r.argv, &r.cwd));
        let counted = |r: &Record| self.witnessed(r) || self.is_broken(&r.id);
        let latest = pinned
            .iter()
            .rev()
            .find(|r| r.on_tree(tree) && counted(r))
            .copied();
        if let Some(gone) = self.removed_since(&asked, latest) {
            return Judgement::Removed {
                id: gone.hash[..12.min(gone.hash.len())].to_string(),
                argv: gone.argv.clone(),
                cwd: gone.cwd.clone(),
            };
        }
        if let Some(latest) = latest {
            return self.latest_verdict(latest, asked.guard);
        }
        self.unproven(&asked, &pinned, &other)
    }

    /// The removed line that would have decided: one that named the criterion on this tree, run
    /// by its pin, after `latest` (the latest line still there). Say so rather than let an older
    /// result decide.
    fn removed_since(&self, asked: &Asked, latest: Option<&Record>) -> Option<&WitnessEntry> {
        let latest_at = latest.and_then(|r| self.order.get(&r.hash).copied());
        self.removed.iter().rev().find(|e| {
            e.names(asked.number, asked.text)
                && e.on_tree(asked.tree)
                && asked.pin_ran(&e.argv, &e.cwd)
                && self.order.get(&e.hash).copied() > latest_at
        })
    }

    /// The verdict of the latest counted record on this tree: it does not verify (evidence.jsonl
    /// was edited), it proves the criterion (a guard's by passing), or it fails.
    fn latest_verdict<'a>(&self, latest: &'a Record, guard: bool) -> Judgement<'a> {
        if self.is_broken(&latest.id) {
            return Judgement::Failing(
                latest,
                format!(
                    "evidence {} does not verify (evidence.jsonl was edited)",
                    latest.id
                ),
            );
        }
        if latest.proves() || (guard && latest.passes()) {
            Judgement::Proven(latest)
        } else {
            Judgement::Failing(latest, latest.failure_reason())
        }
    }

    /// Why no counted record on this tree decides, first reason first: a record on it that
    /// `goal verify` did not write here, passing evidence on another tree (stale), a run of
    /// another command than the pin, the last witnessed run failing on another tree, or no
    /// evidence at all.
    fn unproven<'a>(
        &'a self,
        asked: &Asked,
        pinned: &[&'a Record],
        other: &[&'a Record],
    ) -> Judgement<'a> {
        let rerun = self.rerun_hint(asked);
        if let Some(forged) = pinned.iter().rev().find(|r| r.on_tree(asked.tree)) {
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
        if let Some(passing) = witnessed().find(|r| r.proves() || (asked.guard && r.passes())) {
            return Judgement::Stale(passing);
        }
        if let (Some(pin), Some(wrong)) = (
            &asked.pin,
            other.iter().rev().find(|r| r.on_tree(asked.tree)),
        ) {
            return Judgement::Open(not_the_pin(wrong, pin, &rerun));
        }
        if let Some(last) = witnessed().next() {
            return Judgement::Open(format!(
                "the last evidence {} failed, on another tree; run `{rerun}`",
                last.id
            ));
        }
        Judgement::Open(format!("no evidence names it; run `{rerun}`"))
    }

    /// The command a hint says to run: the pin (with `--check` when it last passed as a check),
    /// or `goal verify` with a test command for an unpinned criterion.
    fn rerun_hint(&self, asked: &Asked) -> String {
        let number = asked.number;
        match &asked.pin {
            Some(_) if self.pin_runs_as_check(number, asked.text) => {
                format!("goal verify --check -c {number}")
            }
            Some(_) => format!("goal verify -c {number}"),
            None => format!("goal verify -c {number} -- <test command>"),
        }
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

    /// The last counted `mutants` record as shown: whether it was made on `tree`.
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

/// The criterion a judgement is asked about, and the tree it is asked on.
struct Asked<'t> {
    number: usize,
    text: &'t str,
    tree: &'t str,
    /// The argv the criterion is pinned to, if any.
    pin: Option<Vec<String>>,
    /// Its pin is a guard's: passing proves it.
    guard: bool,
}

impl Asked<'_> {
    /// Whether a run of `argv` in `cwd` is the criterion's pin run at the worktree root (any
    /// run is, for an unpinned criterion).
    fn pin_ran(&self, argv: &[String], cwd: &str) -> bool {
        self.pin
            .as_ref()
            .is_none_or(|p| p.as_slice() == argv && cwd.is_empty())
    }
}

/// Why `wrong`, a run of another command than `pin` (or of it outside the worktree root), does
/// not prove a pinned criterion.
fn not_the_pin(wrong: &Record, pin: &[String], rerun: &str) -> String {
    let place = if wrong.cwd.is_empty() {
        String::new()
    } else {
        format!(" in {}", wrong.cwd)
    };
    format!(
        "evidence {} ran `{}`{place}, but the criterion is pinned to `{}` at the worktree root: only its pin proves it; run `{rerun}`",
        wrong.id,
        pin::render(&wrong.argv),
        pin::render(pin)
    )
}

/// The text of evidence.jsonl; invalid UTF-8 is an error naming the line it starts on.
fn utf8_text(bytes: &[u8]) -> Result<&str, (usize, String)> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        (
            line,
            "invalid UTF-8: expected one JSON object a line".to_string(),
        )
    })
}

/// A JSON object's string field, "" when it is missing or not a string.
fn str_field<'a>(object: &'a serde_json::Map<String, serde_json::Value>, key: &str) -> &'a str {
    object.get(key).and_then(|v| v.as_str()).unwrap_or("")
}

/// The hash chain of evidence.jsonl walked line by line: the ledger read so far and what the next
/// line must chain to.
struct ChainWalk {
    ledger: Ledger,
    /// The hash of the line before: what the next line must follow.
    prev: String,
    /// Every hash seen so far ("" is where a chain starts): where a branch's records fork.
    seen: std::collections::HashSet<String>,
    /// Records that start the other side of a merge: (index, the tip they fork beside),
    /// waiting for the merge line that joins them.
    forks: Vec<(usize, String)>,
}

impl ChainWalk {
    fn new() -> ChainWalk {
        ChainWalk {
            ledger: Ledger::default(),
            prev: String::new(),
            seen: std::iter::once(String::new()).collect(),
            forks: Vec::new(),
        }
    }

    /// A merge line (line number `line`): it mends the fork it joins, or it is the ledger's
    /// merge problem; either way the chain continues from it.
    fn merge_line(&mut self, object: &serde_json::Map<String, serde_json::Value>, line: usize) {
        let hash = content_hash(object);
        match self.joined_fork(object, &hash) {
            Some(at) => {
                let (index, _) = self.forks.remove(at);
                self.ledger.broken[index] = None;
            }
            None => {
                self.ledger.merge_problem.get_or_insert(format!(
                    "the merge line {} (line {}) does not join the two sides before it",
                    str_field(object, "id"),
                    line
                ));
            }
        }
        self.prev = hash;
        self.seen.insert(self.prev.clone());
    }

    /// Which waiting fork a merge line (whose content hashes to `hash`) joins: it must verify,
    /// follow the line before it as its second parent, and name the fork's tip as its first.
    fn joined_fork(
        &self,
        object: &serde_json::Map<String, serde_json::Value>,
        hash: &str,
    ) -> Option<usize> {
        let field = |k: &str| str_field(object, k);
        let parents: Vec<&str> = object
            .get("parents")
            .and_then(|p| p.as_array())
            .map(|p| p.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        match parents.as_slice() {
            [ours, theirs]
                if field("hash") == hash
                    && hash.starts_with(field("id"))
                    && field("id").len() >= 8
                    && field("prev") == self.prev
                    && *theirs == self.prev =>
            {
                self.forks.iter().rposition(|(_, tip)| tip == ours)
            }
            _ => None,
        }
    }

    /// A record line (line number `line`): the record joins the ledger with why its link is
    /// broken, and the chain continues from it.
    fn record_line(
        &mut self,
        record: Record,
        object: &serde_json::Map<String, serde_json::Value>,
        line: usize,
    ) {
        let hash = content_hash(object);
        let broken = self.broken_link(&record, &hash, line);
        self.prev = record.hash.clone();
        self.seen.insert(self.prev.clone());
        self.ledger.broken.push(broken);
        self.ledger.records.push(record);
    }

    /// Why a record (whose content hashes to `hash`) breaks the chain: changed after it was
    /// written, or not following the line before it; None when it holds. The first record of the
    /// other side of a merge waits among the forks for the merge line that mends it.
    fn broken_link(&mut self, record: &Record, hash: &str, line: usize) -> Option<String> {
        if hash != record.hash || !record.hash.starts_with(&record.id) || record.id.len() < 8 {
            Some(format!(
                "record {} (line {}) was changed after it was written",
                record.id, line
            ))
        } else if record.prev != self.prev && self.seen.contains(&record.prev) {
            // The first record of the other side of a merge: fine once a merge line joins it.
            self.forks
                .push((self.ledger.records.len(), self.prev.clone()));
            Some(format!(
                "record {} (line {}) does not follow the record before it, and no merge line joins it",
                record.id, line
            ))
        } else if record.prev != self.prev {
            Some(format!(
                "record {} (line {}) does not follow the record before it (a line was removed, reordered or inserted)",
                record.id, line
            ))
        } else {
            None
        }
    }

    /// The ledger read, its head the last line's hash.
    fn finish(mut self) -> Ledger {
        self.ledger.head = self.prev;
        self.ledger
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
