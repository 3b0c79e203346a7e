//! Ticking a criterion by hand (only with passing evidence on the working tree as it is now) and
//! unticking one.

use crate::context::now_rfc3339;
use crate::error::{Error, Result};
use crate::workspace::Workspace;

/// A criterion ticked, and the evidence record that allowed it.
#[derive(Debug)]
pub struct Ticked {
    pub number: usize,
    pub text: String,
    pub evidence: String,
}

/// Tick criterion `number`: refused unless passing evidence naming it exists for the working
/// tree as it is now (`evidence`: that record, by id prefix).
pub fn tick(ws: &Workspace, number: usize, evidence: Option<&str>) -> Result<Ticked> {
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let n = super::criterion_number(&goal, number)?;
    let text = goal.criteria[n - 1].text.clone();
    let ledger = ws.ledger()?;
    if let Err(reason) = ledger.verify_chain() {
        return Err(Error::BrokenLedger {
            path: ws.evidence_rel(),
            reason,
            appending: false,
        });
    }
    let tree = ws.worktree_tree()?.to_string();
    let mut proof = ledger.proof(n, &text, &tree);
    // Passing evidence proves nothing of a criterion whose tests pass on the code before the
    // goal: the one proof (with red states) decides, as for every other surface.
    // (Judged on the ledger and tree read above: neither is read twice.)
    if proof.is_ok() {
        let reds = super::red::red_states(ws, &goal, &ledger, &super::red::PlaceOnce::default())?;
        if let Some(c) = crate::proof::judge(&goal, &ledger, Some(&tree))
            .with_red(&reds)
            .get(n)
            && c.state == crate::proof::ProofState::PassesOnBase
        {
            proof = Err(c.why.clone().unwrap_or_default());
        }
    }
    let record = match (evidence, proof) {
        (None, Ok(record)) => record,
        (Some(id), Ok(record)) if record.id.starts_with(id) => record,
        (Some(id), _) => {
            let why = match ledger.records.iter().find(|r| r.id.starts_with(id)) {
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
    Ok(Ticked {
        number: n,
        text,
        evidence: id,
    })
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

/// Untick criterion `number` (always allowed); its number and text.
pub fn untick(ws: &Workspace, number: usize) -> Result<(usize, String)> {
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let n = super::criterion_number(&goal, number)?;
    goal.set_passed(n, false);
    goal.set_updated(&now_rfc3339());
    ws.write_goal(&goal)?;
    Ok((n, goal.criteria[n - 1].text.clone()))
}
