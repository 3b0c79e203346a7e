//! The hash chain of evidence.jsonl: a line's content hash, the merge line that joins two
//! branches' ledgers, and sealing a new record onto the chain.

use super::{Record, Red, TAIL_LINES};
use crate::summary::TestCounts;
use crate::test_names::TestNames;

/// The SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
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
pub(super) fn content_hash(object: &serde_json::Map<String, serde_json::Value>) -> String {
    let mut content = object.clone();
    content.remove("id");
    content.remove("hash");
    let text = serde_json::Value::Object(content).to_string();
    sha256_hex(text.as_bytes())
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
    /// A base run's lock files' digest (see [`Record::locks`]).
    pub locks: Option<String>,
    /// `old` or `support`: an exam run of `goal done` (see [`Record::exam`]).
    pub exam: Option<String>,
    /// The command as it ran, when goal added to the pin (see [`Record::ran`]).
    pub ran: Vec<String>,
}

/// Chain a new record after `prev`: returns the record and its JSON line (with newline).
pub fn seal(new: NewRecord, prev: &str) -> (Record, String) {
    seal_with(new, Extra::default(), prev)
}

/// [`seal`] with the fields of a red run, a base run or test names.
pub fn seal_with(new: NewRecord, extra: Extra, prev: &str) -> (Record, String) {
    seal_cut(new, extra, None, prev)
}

/// [`seal_with`] for a run that may have been cut off at a bound.
pub fn seal_cut(
    new: NewRecord,
    extra: Extra,
    cut_off: Option<super::CutOff>,
    prev: &str,
) -> (Record, String) {
    let text = String::from_utf8_lossy(&new.output);
    let lines: Vec<&str> = text.lines().collect();
    let tail: Vec<String> = lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let record = Record {
        id: String::new(),
        criteria: new.criteria.iter().map(|(n, _)| *n).collect(),
        criteria_text: new.criteria.iter().map(|(_, t)| t.clone()).collect(),
        argv: new.argv,
        ran: extra.ran,
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
        locks: extra.locks,
        exam: extra.exam,
        mutants: None,
        cut_off,
        output_sha256: sha256_hex(&new.output),
        output_tail: tail,
        prev: prev.to_string(),
        hash: String::new(),
    };
    finish(record)
}

/// A `mutants` record: [`seal`] with the goal's change under mutation.
pub fn seal_mutation(
    new: NewRecord,
    mutation: crate::mutants::Mutation,
    prev: &str,
) -> (Record, String) {
    let (mut record, _) = seal(new, prev);
    record.mutants = Some(mutation);
    finish(record)
}

/// Hash a record's content and give it its id; the record and its JSON line.
fn finish(mut record: Record) -> (Record, String) {
    let value = serde_json::to_value(&record).unwrap_or_default();
    let serde_json::Value::Object(object) = value else {
        unreachable!("a record serialises to an object")
    };
    record.hash = content_hash(&object);
    record.id = record.hash[..12].to_string();
    let line = serde_json::to_string(&record).unwrap_or_default();
    (record, format!("{line}\n"))
}
