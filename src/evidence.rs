//! Evidence records (evidence.jsonl): their hash chain, whether they pass, and whether they prove
//! a criterion on a given tree. Pure: the bytes come in, verdicts go out.

use serde::{Deserialize, Serialize};

use crate::pin;
use crate::summary::TestCounts;
use crate::test_names::TestNames;

/// The SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// One verification run, one line of evidence.jsonl.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Wire", into = "Wire")]
pub struct Record {
    /// The first 12 hex digits of `hash`.
    pub id: String,
    pub criteria: Vec<usize>,
    /// The criteria's texts when the run was recorded: evidence for a reworded criterion is void.
    pub criteria_text: Vec<String>,
    pub argv: Vec<String>,
    /// Where the command ran, relative to the worktree root ("" for the root).
    pub cwd: String,
    pub exit_code: i32,
    pub started: String,
    pub duration_ms: u64,
    /// The working tree's tree id before the run, without the goal folder.
    pub tree: String,
    /// The tree after the run when the run only added files (build outputs, caches, lock files):
    /// the evidence holds for it too.
    pub tree_after: Option<String>,
    /// Paths the run created (untracked before it), and paths it modified or deleted.
    pub created: Vec<String>,
    pub changed: Vec<String>,
    pub tests: Option<TestCounts>,
    /// The tests the run named, with their outcomes (`tests.names` in the file; capped).
    pub names: Option<TestNames>,
    /// The `--junit` report patterns the run was read with (a replay reads them again).
    pub junit: Vec<String>,
    /// Recorded with `goal verify --check`: accepted without a test summary.
    pub check: bool,
    /// A red run (`goal verify --red`, or `goal done`'s own): where it ran.
    pub red: Option<Red>,
    /// A guard's base record (`goal verify --base`): the pin run on the goal's base tree.
    pub base_run: bool,
    pub output_sha256: String,
    pub output_tail: Vec<String>,
    /// `hash` of the record before this one ("" for the first).
    pub prev: String,
    /// sha256 of this record's other fields (compact JSON, in file order), `id` and `hash` left out.
    pub hash: String,
}

/// Where a red run ran: the goal's base commit, and the tree of the test surface laid over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Red {
    pub base: String,
    pub tests: String,
}

/// A record's `tests` object in the file: the counts, and the names when the runner printed them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct WireTests {
    #[serde(flatten)]
    counts: TestCounts,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    names: Option<TestNames>,
}

/// A record as one line of evidence.jsonl (fields in file order). Records older than the red run
/// have no `red`, `base_run` or `tests.names`: they are left out when absent, so old lines keep
/// their hashes.
#[derive(Serialize, Deserialize)]
struct Wire {
    id: String,
    criteria: Vec<usize>,
    #[serde(default)]
    criteria_text: Vec<String>,
    argv: Vec<String>,
    #[serde(default)]
    cwd: String,
    exit_code: i32,
    started: String,
    duration_ms: u64,
    tree: String,
    #[serde(default)]
    tree_after: Option<String>,
    #[serde(default)]
    created: Vec<String>,
    #[serde(default)]
    changed: Vec<String>,
    tests: Option<WireTests>,
    #[serde(default)]
    junit: Vec<String>,
    #[serde(default)]
    check: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    red: Option<Red>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    base_run: bool,
    output_sha256: String,
    output_tail: Vec<String>,
    prev: String,
    hash: String,
}

impl From<Wire> for Record {
    fn from(w: Wire) -> Record {
        let (tests, names) = match w.tests {
            Some(t) => (Some(t.counts), t.names),
            None => (None, None),
        };
        Record {
            id: w.id,
            criteria: w.criteria,
            criteria_text: w.criteria_text,
            argv: w.argv,
            cwd: w.cwd,
            exit_code: w.exit_code,
            started: w.started,
            duration_ms: w.duration_ms,
            tree: w.tree,
            tree_after: w.tree_after,
            created: w.created,
            changed: w.changed,
            tests,
            names,
            junit: w.junit,
            check: w.check,
            red: w.red,
            base_run: w.base_run,
            output_sha256: w.output_sha256,
            output_tail: w.output_tail,
            prev: w.prev,
            hash: w.hash,
        }
    }
}

impl From<Record> for Wire {
    fn from(r: Record) -> Wire {
        Wire {
            id: r.id,
            criteria: r.criteria,
            criteria_text: r.criteria_text,
            argv: r.argv,
            cwd: r.cwd,
            exit_code: r.exit_code,
            started: r.started,
            duration_ms: r.duration_ms,
            tree: r.tree,
            tree_after: r.tree_after,
            created: r.created,
            changed: r.changed,
            tests: r.tests.map(|counts| WireTests {
                counts,
                names: r.names,
            }),
            junit: r.junit,
            check: r.check,
            red: r.red,
            base_run: r.base_run,
            output_sha256: r.output_sha256,
            output_tail: r.output_tail,
            prev: r.prev,
            hash: r.hash,
        }
    }
}

/// Lines of output kept in a record.
pub const TAIL_LINES: usize = 20;

impl Record {
    /// Exit 0 and, where a test summary was recognised, no failure and at least one test run.
    pub fn passes(&self) -> bool {
        self.exit_code == 0 && self.tests.is_none_or(|t| t.failed == 0 && t.passed >= 1)
    }

    /// Passing evidence that may prove a criterion: a test run, or a check asked for as one.
    pub fn proves(&self) -> bool {
        self.passes() && (self.tests.is_some() || self.check)
    }

    pub fn is_test(&self) -> bool {
        self.tests.is_some()
    }

    /// A run on the working code (not a red run, not a guard's base run).
    pub fn on_working_code(&self) -> bool {
        self.red.is_none() && !self.base_run
    }

    /// Whether the record names criterion `number` with the same requirement (its text without
    /// the pin: adding a pin keeps the evidence; the pin itself is checked against `argv`).
    fn names(&self, number: usize, text: &str) -> bool {
        names(&self.criteria, &self.criteria_text, number, text)
    }

    /// Whether the evidence holds for `tree`: the tree it ran on, or the tree its run left
    /// behind when the run only added files.
    pub fn on_tree(&self, tree: &str) -> bool {
        on_tree(&self.tree, self.tree_after.as_deref(), tree)
    }

    /// Why this record does not prove anything, in the seeds' words.
    pub fn failure_reason(&self) -> String {
        if self.exit_code != 0 {
            return format!(
                "evidence {} failed: `{}` exited {}",
                self.id,
                self.argv.join(" "),
                self.exit_code
            );
        }
        match self.tests {
            Some(t) if t.failed > 0 => {
                format!("evidence {} failed: {} test(s) failed", self.id, t.failed)
            }
            Some(t) if t.passed == 0 => format!(
                "evidence {}: no tests ran (red flag: \"tests don't run but code looks fine\")",
                self.id
            ),
            None if !self.check => format!(
                "evidence {}: `{}` printed no test summary; run a test command, or `goal verify --check` for a linter or script",
                self.id,
                self.argv.join(" ")
            ),
            _ => format!("evidence {} does not pass", self.id),
        }
    }
}

/// The line that joins two branches' ledgers after a merge: `{"kind": "merge", "parents":
/// [<ours' last hash>, <theirs' last hash>], "prev": <theirs' last hash>, "id", "hash"}`. It
/// follows theirs' records, which follow ours' (each side's own records byte for byte), and
/// proves nothing itself.
pub fn merge_line(ours_head: &str, theirs_head: &str) -> String {
    // The same key order as the line that is read back, so that the hash is the one a reader
    // computes.
    let mut line = serde_json::Map::new();
    line.insert("id".into(), "".into());
    line.insert("kind".into(), "merge".into());
    line.insert(
        "parents".into(),
        serde_json::json!([ours_head, theirs_head]),
    );
    line.insert("prev".into(), theirs_head.into());
    line.insert("hash".into(), "".into());
    let hash = content_hash(&line);
    line.insert("id".into(), hash[..12].into());
    line.insert("hash".into(), hash.into());
    serde_json::Value::Object(line).to_string()
}

/// The hash of a line: the `hash` of a record or of a merge line.
pub fn line_hash(line: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    value.get("hash")?.as_str().map(str::to_string)
}

/// The hash of a record's JSON object without its `id` and `hash` keys.
fn content_hash(object: &serde_json::Map<String, serde_json::Value>) -> String {
    let mut content = object.clone();
    content.remove("id");
    content.remove("hash");
    let text = serde_json::Value::Object(content).to_string();
    sha256_hex(text.as_bytes())
}

/// What the witness keeps of a record: enough to judge it after its line is gone from
/// evidence.jsonl (a removed last line must not let an older result decide).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessEntry {
    pub hash: String,
    pub prev: String,
    pub criteria: Vec<usize>,
    pub criteria_text: Vec<String>,
    pub argv: Vec<String>,
    pub cwd: String,
    pub tree: String,
    pub tree_after: Option<String>,
    pub proves: bool,
}

impl WitnessEntry {
    pub fn of(record: &Record) -> WitnessEntry {
        WitnessEntry {
            hash: record.hash.clone(),
            prev: record.prev.clone(),
            criteria: record.criteria.clone(),
            criteria_text: record.criteria_text.clone(),
            argv: record.argv.clone(),
            cwd: record.cwd.clone(),
            tree: record.tree.clone(),
            tree_after: record.tree_after.clone(),
            proves: record.proves(),
        }
    }

    fn names(&self, number: usize, text: &str) -> bool {
        names(&self.criteria, &self.criteria_text, number, text)
    }

    fn on_tree(&self, tree: &str) -> bool {
        on_tree(&self.tree, self.tree_after.as_deref(), tree)
    }
}

/// Whether a run's `criteria` (with their texts then) name criterion `number` with the same
/// requirement (its text without the pin: adding a pin keeps the evidence; the pin itself is
/// checked against the run's argv).
fn names(criteria: &[usize], criteria_text: &[String], number: usize, text: &str) -> bool {
    match criteria.iter().position(|&n| n == number) {
        None => false,
        Some(i) => criteria_text
            .get(i)
            .is_none_or(|t| pin::base(t) == pin::base(text)),
    }
}

/// A run on `before` that left `after` (when it only added files) holds for either tree.
fn on_tree(before: &str, after: Option<&str>, tree: &str) -> bool {
    before == tree || after == Some(tree)
}

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

/// What `goal verify` knows of a run before it is chained.
pub struct NewRecord {
    pub criteria: Vec<(usize, String)>,
    pub argv: Vec<String>,
    pub cwd: String,
    pub exit_code: i32,
    pub started: String,
    pub duration_ms: u64,
    pub tree: String,
    pub tree_after: Option<String>,
    pub created: Vec<String>,
    pub changed: Vec<String>,
    pub tests: Option<TestCounts>,
    pub junit: Vec<String>,
    pub check: bool,
    pub output: Vec<u8>,
}

/// What a red run, a guard's base run or a runner naming its tests adds to a new record.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub names: Option<TestNames>,
    pub red: Option<Red>,
    pub base_run: bool,
}

/// Chain a new record after `prev`: returns the record and its JSON line (with newline).
pub fn seal(new: NewRecord, prev: &str) -> (Record, String) {
    seal_with(new, Extra::default(), prev)
}

/// [`seal`] with the fields of a red run, a base run or test names.
pub fn seal_with(new: NewRecord, extra: Extra, prev: &str) -> (Record, String) {
    let text = String::from_utf8_lossy(&new.output);
    let lines: Vec<&str> = text.lines().collect();
    let tail: Vec<String> = lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let mut record = Record {
        id: String::new(),
        criteria: new.criteria.iter().map(|(n, _)| *n).collect(),
        criteria_text: new.criteria.iter().map(|(_, t)| t.clone()).collect(),
        argv: new.argv,
        cwd: new.cwd,
        exit_code: new.exit_code,
        started: new.started,
        duration_ms: new.duration_ms,
        tree: new.tree,
        tree_after: new.tree_after,
        created: new.created,
        changed: new.changed,
        tests: new.tests,
        names: extra
            .names
            .filter(|n| new.tests.is_some() && !n.names.is_empty()),
        junit: new.junit,
        check: new.check,
        red: extra.red,
        base_run: extra.base_run,
        output_sha256: sha256_hex(&new.output),
        output_tail: tail,
        prev: prev.to_string(),
        hash: String::new(),
    };
    let value = serde_json::to_value(&record).unwrap_or_default();
    let serde_json::Value::Object(object) = value else {
        unreachable!("a record serialises to an object")
    };
    record.hash = content_hash(&object);
    record.id = record.hash[..12].to_string();
    let line = serde_json::to_string(&record).unwrap_or_default();
    (record, format!("{line}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        criteria: &[usize],
        exit_code: i32,
        tests: Option<(u64, u64)>,
        tree: &str,
        check: bool,
    ) -> NewRecord {
        NewRecord {
            criteria: criteria.iter().map(|&n| (n, format!("c{n}"))).collect(),
            argv: vec!["cargo".into(), "test".into()],
            cwd: String::new(),
            exit_code,
            started: "2026-11-30T00:00:00Z".into(),
            duration_ms: 5,
            tree: tree.into(),
            tree_after: None,
            created: Vec::new(),
            changed: Vec::new(),
            tests: tests.map(|(p, f)| TestCounts {
                passed: p,
                failed: f,
                ignored: 0,
            }),
            junit: Vec::new(),
            check,
            output: b"ok\n".to_vec(),
        }
    }

    fn ledger(runs: Vec<NewRecord>) -> (Ledger, String) {
        let mut text = String::new();
        let mut prev = String::new();
        for r in runs {
            let (record, line) = seal(r, &prev);
            prev = record.hash;
            text.push_str(&line);
        }
        (Ledger::parse(text.as_bytes()).unwrap(), text)
    }

    #[test]
    fn proof_rules() {
        // (runs, criterion asked, tree asked, proven?, reason contains)
        type Case = (Vec<NewRecord>, usize, &'static str, Option<&'static str>);
        let cases: Vec<Case> = vec![
            (vec![run(&[1], 0, Some((3, 0)), "T", false)], 1, "T", None),
            (
                vec![run(&[1], 0, Some((3, 0)), "T", false)],
                2,
                "T",
                Some("no evidence"),
            ),
            (
                vec![run(&[1], 0, Some((3, 0)), "OLD", false)],
                1,
                "T",
                Some("stale"),
            ),
            (
                vec![run(&[1], 1, Some((2, 1)), "T", false)],
                1,
                "T",
                Some("exited 1"),
            ),
            (
                vec![run(&[1], 0, Some((0, 0)), "T", false)],
                1,
                "T",
                Some("no tests ran"),
            ),
            (
                vec![run(&[1], 0, None, "T", false)],
                1,
                "T",
                Some("no test summary"),
            ),
            (vec![run(&[1], 0, None, "T", true)], 1, "T", None),
            (
                vec![run(&[1], 1, None, "T", true)],
                1,
                "T",
                Some("exited 1"),
            ),
            (
                vec![
                    run(&[1], 0, Some((3, 0)), "T", false),
                    run(&[1], 1, Some((2, 1)), "T", false),
                ],
                1,
                "T",
                Some("failed"),
            ),
            (
                vec![
                    run(&[1], 1, Some((2, 1)), "T", false),
                    run(&[1, 2], 0, Some((3, 0)), "T", false),
                ],
                1,
                "T",
                None,
            ),
        ];
        for (i, (runs, number, tree, want)) in cases.into_iter().enumerate() {
            let (ledger, _) = ledger(runs);
            let got = ledger.proof(number, &format!("c{number}"), tree);
            match want {
                None => assert!(got.is_ok(), "case {i}: {got:?}"),
                Some(word) => assert!(
                    got.as_ref().is_err_and(|e| e.contains(word)),
                    "case {i}: {got:?}"
                ),
            }
        }
    }

    #[test]
    fn red_fields_and_names_round_trip_and_old_lines_still_verify() {
        use crate::test_names::{TestName, TestOutcome};
        // A line written before the red run existed: no red, base_run or tests.names.
        let (old, old_line) = seal(run(&[1], 0, Some((3, 0)), "T", false), "");
        assert!(!old_line.contains("\"red\""), "{old_line}");
        assert!(!old_line.contains("base_run"), "{old_line}");
        assert!(!old_line.contains("names"), "{old_line}");
        let parsed = Ledger::parse(old_line.as_bytes()).unwrap();
        assert!(parsed.verify_chain().is_ok());
        assert_eq!(parsed.records[0], old);
        let names = TestNames {
            names: vec![TestName {
                name: "tests/test_calc.py::test_add".into(),
                outcome: TestOutcome::Failed,
            }],
            truncated: false,
        };
        let extra = Extra {
            names: Some(names.clone()),
            red: Some(Red {
                base: "b".repeat(40),
                tests: "a".repeat(40),
            }),
            base_run: true,
        };
        let (new, line) = seal_with(run(&[1], 1, Some((0, 1)), "R", false), extra, &old.hash);
        assert!(
            line.contains("\"tests\":{\"passed\":0,\"failed\":1,\"ignored\":0,\"names\":{\"names\":[{\"name\":\"tests/test_calc.py::test_add\",\"outcome\":\"failed\"}]}}"),
            "{line}"
        );
        assert!(line.contains("\"base_run\":true"), "{line}");
        let both = Ledger::parse(format!("{old_line}{line}").as_bytes()).unwrap();
        assert!(both.verify_chain().is_ok());
        assert_eq!(both.records[1], new);
        assert_eq!(both.records[1].names, Some(names));
        assert!(!both.records[1].on_working_code());
    }

    #[test]
    fn reworded_criterion_voids_evidence() {
        let (ledger, _) = ledger(vec![run(&[1], 0, Some((3, 0)), "T", false)]);
        assert!(ledger.proof(1, "c1", "T").is_ok());
        assert!(ledger.proof(1, "something else", "T").is_err());
    }

    #[test]
    fn chain_detects_edits_removals_and_reorders() {
        let (good, text) = ledger(vec![
            run(&[1], 0, Some((1, 0)), "A", false),
            run(&[2], 1, Some((0, 1)), "A", false),
            run(&[2], 0, Some((1, 0)), "B", false),
        ]);
        assert!(good.verify_chain().is_ok());
        assert!(good.has_passing_test("A"));
        assert!(!good.has_passing_test("C"));
        let lines: Vec<&str> = text.lines().collect();
        let edited = text.replace("\"exit_code\":1", "\"exit_code\":0");
        let removed = format!("{}\n{}\n", lines[0], lines[2]);
        let reordered = format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]);
        for (name, bad) in [
            ("edited", edited),
            ("removed", removed),
            ("reordered", reordered),
        ] {
            let ledger = Ledger::parse(bad.as_bytes()).unwrap();
            assert!(ledger.verify_chain().is_err(), "{name}");
        }
        let edited = text.replace("\"exit_code\":1", "\"exit_code\":0");
        let ledger = Ledger::parse(edited.as_bytes()).unwrap();
        let id = &ledger.records[1].id;
        assert!(
            ledger
                .proof(2, "c2", "A")
                .unwrap_err()
                .contains(id.as_str())
        );
    }

    #[test]
    fn malformed_lines_are_located() {
        assert_eq!(Ledger::parse(b"{}\n").unwrap_err().0, 1);
        let (_, text) = ledger(vec![run(&[1], 0, Some((1, 0)), "A", false)]);
        let bad = format!("{text}not json\n");
        assert_eq!(Ledger::parse(bad.as_bytes()).unwrap_err().0, 2);
    }

    #[test]
    fn failure_reasons_name_what_went_wrong() {
        // (exit code, tests passed/failed, --check) → the reason, with the record's id as ID.
        let table = [
            (
                1,
                Some((2, 1)),
                false,
                "evidence ID failed: `cargo test` exited 1",
            ),
            (
                0,
                Some((2, 1)),
                false,
                "evidence ID failed: 1 test(s) failed",
            ),
            (
                0,
                Some((0, 1)),
                false,
                "evidence ID failed: 1 test(s) failed",
            ),
            (
                0,
                Some((0, 0)),
                false,
                "evidence ID: no tests ran (red flag: \"tests don't run but code looks fine\")",
            ),
            (
                0,
                None,
                false,
                "evidence ID: `cargo test` printed no test summary; run a test command, or `goal verify --check` for a linter or script",
            ),
            (0, None, true, "evidence ID does not pass"),
            (0, Some((3, 0)), false, "evidence ID does not pass"),
        ];
        for (exit_code, tests, check, want) in table {
            let (record, _) = seal(run(&[1], exit_code, tests, "T", check), "");
            assert_eq!(
                record.failure_reason(),
                want.replace("ID", &record.id),
                "{exit_code} {tests:?} {check}"
            );
        }
    }

    #[test]
    fn an_id_that_is_not_a_long_enough_prefix_of_the_hash_is_a_broken_link() {
        let (_, text) = ledger(vec![run(&[1], 0, Some((1, 0)), "A", false)]);
        let good = Ledger::parse(text.as_bytes()).unwrap();
        let id = good.records[0].id.clone();
        let hash = good.records[0].hash.clone();
        assert!(good.verify_chain().is_ok());
        // The id and the hash are outside the hashed content: each check must hold on its own.
        for (name, new_id) in [
            ("not a prefix", "zzzzzzzzzzzz".to_string()),
            ("too short", hash[..7].to_string()),
        ] {
            let bad = text.replace(&format!("\"id\":\"{id}\""), &format!("\"id\":\"{new_id}\""));
            let ledger = Ledger::parse(bad.as_bytes()).unwrap();
            assert_eq!(
                ledger.verify_chain(),
                Err(format!(
                    "record {new_id} (line 1) was changed after it was written"
                )),
                "{name}"
            );
            assert!(ledger.is_broken(&new_id), "{name}");
        }
        // An 8-digit prefix is still the record.
        let short = text.replace(
            &format!("\"id\":\"{id}\""),
            &format!("\"id\":\"{}\"", &hash[..8]),
        );
        assert!(
            Ledger::parse(short.as_bytes())
                .unwrap()
                .verify_chain()
                .is_ok()
        );
    }

    #[test]
    fn line_numbers_count_every_line_blank_ones_too() {
        let (_, text) = ledger(vec![
            run(&[1], 0, Some((1, 0)), "A", false),
            run(&[2], 0, Some((1, 0)), "A", false),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        let second = Ledger::parse(text.as_bytes()).unwrap().records[1]
            .id
            .clone();
        let blank = Ledger::parse(format!("{}\n\n{}\n", lines[0], lines[1]).as_bytes());
        assert!(
            blank.unwrap().verify_chain().is_ok(),
            "a blank line is skipped"
        );
        let edited = lines[1].replace("\"duration_ms\":5", "\"duration_ms\":6");
        let ledger = Ledger::parse(format!("{}\n\n{edited}\n", lines[0]).as_bytes()).unwrap();
        assert_eq!(
            ledger.verify_chain(),
            Err(format!(
                "record {second} (line 3) was changed after it was written"
            ))
        );
        let swapped = Ledger::parse(format!("{}\n{}\n", lines[1], lines[0]).as_bytes()).unwrap();
        assert_eq!(
            swapped.verify_chain(),
            Err(format!(
                "record {second} (line 1) does not follow the record before it (a line was removed, reordered or inserted)"
            ))
        );
        // Malformed lines: (line, message).
        let at = |bytes: &[u8]| Ledger::parse(bytes).unwrap_err();
        assert_eq!(at(format!("{}\n\n[1]\n", lines[0]).as_bytes()).0, 3);
        assert_eq!(
            at(format!("{}\n\n[1]\n", lines[0]).as_bytes()).1,
            "expected a JSON object"
        );
        assert_eq!(at(b"\n{}\n").0, 2);
        assert_eq!(at(b"\n\n{not json\n").0, 3);
        // Line 4: three newlines before the bad byte (and two other bytes, which do not count).
        let utf8 = at(b"\n{}\n\n\xff\n");
        assert_eq!(
            utf8,
            (4, "invalid UTF-8: expected one JSON object a line".into())
        );
    }

    #[test]
    fn the_witness_decides_which_records_count() {
        let (ledger, _) = ledger(vec![
            run(&[1], 0, Some((3, 0)), "T", false),
            run(&[2], 0, Some((3, 0)), "T", false),
        ]);
        let first = ledger.records[0].clone();
        let second = ledger.records[1].clone();
        assert_eq!(ledger.head_hash(), second.hash);
        assert_eq!(Ledger::default().head_hash(), "");
        assert_eq!(ledger.find(&second.id), Some(&second));
        assert_eq!(ledger.find(&first.id), Some(&first));
        assert_eq!(ledger.find("000000000000"), None);
        // Only the second record is in this clone's witness.
        let ledger = ledger.with_witness([second.hash.clone()].into_iter().collect());
        assert_eq!(ledger.records.len(), 2, "the witness keeps the records");
        assert_eq!(
            ledger.proof(1, "c1", "T"),
            Err(format!(
                "evidence {} was not recorded by `goal verify` in this repository (written by hand, or copied from another clone); run `goal verify -c 1 -- <test command>` here",
                first.id
            ))
        );
        assert_eq!(ledger.proof(2, "c2", "T"), Ok(&second));
        assert!(ledger.has_passing_test("T"));
        let none = ledger.with_witness(Default::default());
        assert!(!none.has_passing_test("T"));
    }

    #[test]
    fn a_pinned_criterion_counts_only_its_pins_runs() {
        let pinned = "c1 (verify: `cargo test`)";
        let mut other = run(&[1], 0, Some((3, 0)), "T", false);
        other.argv = vec!["cargo".into(), "test".into(), "x".into()];
        let (wrong, _) = ledger(vec![other]);
        assert_eq!(
            wrong.proof(1, pinned, "T"),
            Err(format!(
                "evidence {} ran `cargo test x`, but the criterion is pinned to `cargo test` at the worktree root: only its pin proves it; run `goal verify -c 1`",
                wrong.records[0].id
            ))
        );
        let (right, _) = ledger(vec![run(&[1], 0, Some((3, 0)), "T", false)]);
        assert!(right.proof(1, pinned, "T").is_ok());
    }

    #[test]
    fn an_edited_record_on_another_tree_is_not_stale_evidence() {
        let (_, text) = ledger(vec![run(&[1], 0, Some((3, 0)), "OLD", false)]);
        let edited = text.replace("\"duration_ms\":5", "\"duration_ms\":6");
        let ledger = Ledger::parse(edited.as_bytes()).unwrap();
        assert!(ledger.verify_chain().is_err());
        assert_eq!(
            ledger.proof(1, "c1", "T"),
            Err("no evidence names it; run `goal verify -c 1 -- <test command>`".to_string())
        );
        // Unedited, the same record is stale evidence.
        let ledger = Ledger::parse(text.as_bytes()).unwrap();
        assert!(
            ledger
                .proof(1, "c1", "T")
                .unwrap_err()
                .starts_with("stale: ")
        );
    }
}
