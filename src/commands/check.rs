//! `goal check` / `goal uncheck`: tick a criterion by hand (only with fresh evidence) or untick it.

use serde_json::json;

use super::criterion_number;
use crate::context::{Ctx, now_rfc3339};
use crate::error::{Error, Result};
use crate::workspace::Workspace;

/// Tick criterion N by hand. Refused (exit 1) unless passing evidence naming N exists for the
/// working tree as it is now (`goal verify -c N -- <test command>` makes it).
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    pub number: usize,
    /// Use this evidence record (it must name N, pass, and be fresh).
    #[arg(long, value_name = "ID")]
    pub evidence: Option<String>,
}

/// Untick criterion N (always allowed).
#[derive(Debug, clap::Args)]
pub struct UncheckArgs {
    pub number: usize,
}

pub fn run_check(ctx: &Ctx, args: CheckArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let n = criterion_number(&goal, args.number)?;
    let text = goal.criteria[n - 1].text.clone();
    let ledger = ws.ledger()?;
    if let Err(reason) = ledger.verify_chain() {
        return Err(Error::refused(
            format!("evidence.jsonl does not verify: {reason}"),
            crate::store::broken_ledger_hint(&ws.evidence_rel()),
        ));
    }
    let tree = ws.worktree_tree()?.to_string();
    let proof = ledger.proof(n, &text, &tree);
    let record = match (&args.evidence, proof) {
        (None, Ok(record)) => record,
        (Some(id), Ok(record)) if record.id.starts_with(id.as_str()) => record,
        (Some(id), _) => {
            let why = match ledger
                .records
                .iter()
                .find(|r| r.id.starts_with(id.as_str()))
            {
                None => format!("there is no evidence record {id}"),
                Some(r) if !r.criteria.contains(&n) => {
                    format!("evidence {} does not name criterion {n}", r.id)
                }
                Some(r) if r.tree != tree => {
                    format!("evidence {} is stale: the code changed since it ran", r.id)
                }
                Some(r) => r.failure_reason(),
            };
            return Err(Error::refused(
                format!("cannot check criterion {n} \"{text}\": {why}"),
                verify_hint(&ledger, n, &text),
            ));
        }
        (None, Err(why)) => {
            return Err(Error::refused(
                format!("cannot check criterion {n} \"{text}\": {why}"),
                verify_hint(&ledger, n, &text),
            ));
        }
    };
    let id = record.id.clone();
    goal.set_passed(n, true);
    goal.set_updated(&now_rfc3339());
    ws.write_goal(&goal)?;
    if ctx.json {
        ctx.emit_json(&json!({"number": n, "passed": true, "evidence": id}))?;
    } else {
        ctx.say(format!("[x] {n}. {text} (evidence {id})"));
    }
    Ok(0)
}

/// The command that proves criterion `n`: its pin, or a test command.
fn verify_hint(ledger: &crate::evidence::Ledger, n: usize, text: &str) -> String {
    if ledger.pin_runs_as_check(n, text) {
        format!("goal verify --check -c {n}")
    } else if crate::pin::argv(text).is_some() {
        format!("goal verify -c {n}")
    } else {
        format!("goal verify -c {n} -- <test command>")
    }
}

pub fn run_uncheck(ctx: &Ctx, args: UncheckArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let n = criterion_number(&goal, args.number)?;
    goal.set_passed(n, false);
    goal.set_updated(&now_rfc3339());
    ws.write_goal(&goal)?;
    if ctx.json {
        ctx.emit_json(&json!({"number": n, "passed": false}))?;
    } else {
        ctx.say(format!("[ ] {n}. {}", goal.criteria[n - 1].text));
    }
    Ok(0)
}
