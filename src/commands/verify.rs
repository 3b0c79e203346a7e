//! `goal verify`: run a command, record evidence bound to the working tree, tick or untick.

use std::time::Instant;

use super::criterion_number;
use crate::child::run_teed;
use crate::context::{Ctx, now_rfc3339};
use crate::error::Result;
use crate::evidence::{self, NewRecord, Record};
use crate::summary;
use crate::workspace::{Workspace, write_atomic};

/// Run a command (argv, no shell), stream its output, and append an evidence record bound to the
/// working tree's git tree. Each -c criterion is ticked when the evidence passes and unticked when
/// it does not. Exits with the command's exit code.
///
/// Evidence passes when the command exits 0 and, if a test summary is recognised (cargo test,
/// nextest, pytest, go test, jest, vitest, node --test, "N passed, N failed"), no test failed and
/// at least one ran. Without a test summary it is check evidence, accepted only with --check.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A criterion this run proves (repeatable).
    #[arg(short = 'c', long = "criterion", value_name = "N")]
    pub criteria: Vec<usize>,
    /// Accept a passing run without a test summary (a linter, a type checker, a script).
    #[arg(long)]
    pub check: bool,
    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub argv: Vec<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    let mut criteria = Vec::new();
    for &n in &args.criteria {
        let n = criterion_number(&goal, n)?;
        if !criteria.iter().any(|(k, _)| *k == n) {
            criteria.push((n, goal.criteria[n - 1].text.clone()));
        }
    }
    // Fail on a broken or malformed ledger before spending time on the run.
    ws.ledger()?;
    let tree = ws.worktree_tree()?.to_string();
    let started = now_rfc3339();
    let clock = Instant::now();
    let (exit_code, output) = run_teed(&args.argv, ws.root(), ctx.json)?;
    let duration_ms = clock.elapsed().as_millis() as u64;
    let tests = summary::recognise(&String::from_utf8_lossy(&output));
    let tree_after = ws.worktree_tree()?.to_string();

    let _lock = ws.lock()?;
    let ledger = ws.ledger()?;
    let (record, line) = evidence::seal(
        NewRecord {
            criteria: criteria.clone(),
            argv: args.argv.clone(),
            exit_code,
            started,
            duration_ms,
            tree,
            tests,
            check: args.check,
            output,
        },
        &ledger.head_hash(),
    );
    // The witness first: a crash after it leaves an unused hash, never an unwitnessed record.
    ws.witness(&record.hash)?;
    let evidence_path = ws.abs(&ws.evidence_rel());
    let mut bytes = std::fs::read(&evidence_path).unwrap_or_default();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    write_atomic(&evidence_path, &bytes)?;

    let mut goal = ws.goal()?;
    for (n, text) in &criteria {
        // The goal may have changed while the command ran: tick only the same criterion.
        if goal.criterion(*n).is_some_and(|c| &c.text == text) {
            goal.set_passed(*n, record.proves());
        }
    }
    if !criteria.is_empty() {
        goal.set_updated(&now_rfc3339());
        ws.write_goal(&goal)?;
    }
    if tree_after != record.tree {
        ctx.note("warning: the working tree changed while the command ran; this evidence is for the tree it started on");
    }
    report(ctx, &record, &criteria)?;
    Ok(u8::try_from(exit_code)
        .unwrap_or(1)
        .max(u8::from(exit_code != 0)))
}

fn report(ctx: &Ctx, record: &Record, criteria: &[(usize, String)]) -> Result<()> {
    if ctx.json {
        return ctx.emit_json(&serde_json::json!({
            "record": record,
            "passes": record.passes(),
            "proves": record.proves(),
        }));
    }
    let tests = match record.tests {
        Some(t) => format!(
            "tests {} passed, {} failed, {} ignored",
            t.passed, t.failed, t.ignored
        ),
        None => "no test summary".into(),
    };
    let names: Vec<String> = criteria.iter().map(|(n, _)| n.to_string()).collect();
    let verdict = if record.proves() {
        if names.is_empty() {
            "passes".to_string()
        } else {
            format!("criterion {} passed", names.join(", "))
        }
    } else {
        let mut text = record.failure_reason();
        if !names.is_empty() {
            text.push_str(&format!(" — criterion {} not passed", names.join(", ")));
        }
        text
    };
    ctx.note(format!(
        "evidence {}: exit {}, {tests} — {verdict}",
        record.id, record.exit_code
    ));
    Ok(())
}
