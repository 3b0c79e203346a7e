//! What `goal status` shows of the active goal: each criterion with its evidence and red state,
//! the ledger, stagnation, retries, and the one next step every surface tells.

use serde::Serialize;

use crate::error::Result;
use crate::goal_file::{GoalFile, Status};
use crate::history;
use crate::proof::{Proof, ProofState};
use crate::stagnation::StagnationVerdict;
use crate::workspace::Workspace;

#[derive(Debug, Serialize)]
pub struct CriterionView {
    pub number: usize,
    pub text: String,
    /// Ticked: its box is `[x]` in GOAL.md.
    pub passed: bool,
    /// The id of the fresh passing evidence record, or null.
    pub evidence: Option<String>,
    /// proven | stale | failing | open | passes-on-base.
    pub state: ProofState,
    /// acceptance | guard | unpinned.
    pub kind: &'static str,
    /// An acceptance criterion's red state: pending | witnessed | passes-on-base | inconclusive
    /// (null for guards and unpinned criteria).
    pub red: Option<crate::surface::judge::RedState>,
    /// The red witness's record id (red witnessed), or the red run that passed or ran nothing.
    pub red_record: Option<String>,
    /// The command that would prove it again (its pin, else the recorded one), or null.
    pub rerun: Option<Vec<String>>,
    /// The ready `goal verify` line for `rerun`.
    pub rerun_line: Option<String>,
    /// The pinned command, as written in GOAL.md, or null.
    pub pin: Option<String>,
    /// Why it is not proven.
    pub why: Option<String>,
    pub phase: Option<usize>,
}

/// Whether evidence.jsonl's hash chain verifies.
#[derive(Debug, Serialize)]
pub struct LedgerView {
    pub verifies: bool,
    pub problem: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct RetryView {
    pub retries: u32,
    pub max: u32,
}

#[derive(Debug, Serialize)]
pub struct StatusView {
    /// There is an active goal (`goal status --json` without one prints `{"active": false, …}`).
    pub active: bool,
    pub goal: String,
    pub status: Status,
    pub iteration: u64,
    /// Ticked criteria.
    pub passing: usize,
    /// Criteria proven on the working tree as it is now: the progress figure.
    pub proven: usize,
    pub total: usize,
    pub criteria: Vec<CriterionView>,
    /// The next step, consistent with what `goal done` would say.
    pub next: String,
    /// What `goal done` would decide from what is recorded: true when it would complete the goal.
    pub done_would_pass: bool,
    pub ledger: LedgerView,
    pub phase: Option<String>,
    pub stagnation: StagnationVerdict,
    pub retry: RetryView,
    pub blocked: Option<Vec<String>>,
    pub file: String,
    /// HEAD names a commit, not a branch: goal's commits would be on no branch.
    pub detached: bool,
    /// The settings that judge the goal that are not the defaults (GOAL.md's; `{}` when none).
    pub settings: serde_json::Value,
    /// The goal's last `mutants` record when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<super::mutants::MutationView>,
    /// The agent hosts whose project configuration runs `goal hook <host>`.
    pub hosts: Vec<HostView>,
}

/// An agent host integrated in this work tree, and when its hook last ran here.
#[derive(Debug, Serialize)]
pub struct HostView {
    pub host: &'static str,
    /// When `goal hook <host>` last ran for this work tree (RFC 3339), or null: never.
    pub last_ran: Option<String>,
    /// The host's trust step, which a hook that never ran may be waiting for.
    pub trust: Option<&'static str>,
}

impl HostView {
    /// "codex: hooks installed, last ran <time>" or "gemini: hooks installed, never ran: <trust>".
    pub fn line(&self) -> String {
        match (&self.last_ran, self.trust) {
            (Some(at), _) => format!("{}: hooks installed, last ran {at}", self.host),
            (None, Some(trust)) => format!("{}: hooks installed, never ran: {trust}", self.host),
            (None, None) => format!(
                "{}: hooks installed, never ran (no session of it has started here since)",
                self.host
            ),
        }
    }
}

/// The hosts whose file in this work tree runs goal's hook, with the record of their last run.
pub fn hosts(ws: &Workspace) -> Vec<HostView> {
    crate::hosts::HOSTS
        .iter()
        .filter(|h| {
            std::fs::read_to_string(ws.repo.root().join(h.file))
                .is_ok_and(|text| text.contains(&h.command()))
        })
        .map(|h| HostView {
            host: h.name,
            last_ran: std::fs::read_to_string(crate::repo::hook_record(ws.repo.root(), h.name))
                .ok()
                .map(|t| t.trim().to_string()),
            trust: h.trust,
        })
        .collect()
}

/// Gather everything `status` shows (also used by the agent adapters).
pub fn view(ws: &Workspace, goal: &GoalFile) -> Result<StatusView> {
    let ledger = ws.ledger()?;
    let once = super::red::PlaceOnce::default();
    let reds = super::red::red_states(ws, goal, &ledger, &once)?;
    let proof = super::judged(ws, goal, &ledger, &once, &reds)?;
    let criteria = goal
        .criteria
        .iter()
        .zip(&proof.criteria)
        .zip(&reds)
        .map(|((c, p), red)| CriterionView {
            kind: p.kind,
            red: p.red,
            red_record: red.as_ref().and_then(|r| r.record.clone()),
            number: c.number,
            text: c.text.clone(),
            passed: c.passed,
            evidence: p.evidence.clone(),
            state: p.state,
            rerun: p.rerun.clone(),
            rerun_line: p.rerun_line(),
            pin: p.pin.clone(),
            why: p.why.clone(),
            phase: c.phase.map(|p| p + 1),
        })
        .collect();
    let retry = ws.retry_state();
    let problem = ledger.verify_chain().err();
    let settings = super::settings::of_goal(ws, goal).json();
    // The working tree is scanned again only when there is a `mutants` record to place.
    let mutation = if ledger.records.iter().any(|r| r.mutants.is_some()) {
        super::mutants::view(&ledger, &ws.worktree_tree()?.to_string())
    } else {
        None
    };
    Ok(StatusView {
        settings,
        mutation,
        hosts: hosts(ws),
        active: true,
        goal: goal.goal.clone(),
        status: goal.status,
        iteration: goal.iteration,
        passing: goal.passing_count(),
        proven: proof.proven,
        total: goal.criteria.len(),
        criteria,
        next: next_step(goal, &proof),
        done_would_pass: goal.status != Status::Blocked && proof.complete(),
        ledger: LedgerView {
            verifies: problem.is_none(),
            problem,
        },
        phase: goal
            .current_phase()
            .map(|p| format!("Phase {}: {}", p.number, p.name)),
        stagnation: history::stagnation(&ws.repo, &ws.goal_dir, goal, &ws.config)?,
        retry: RetryView {
            retries: retry.failures(),
            max: ws.config.max_retries,
        },
        blocked: goal.blocked.clone(),
        file: ws.goal_rel.display().to_string(),
        detached: ws.repo.head_detached(),
    })
}

/// The one next step every surface tells: `goal done` only when it would agree.
pub fn next_step(goal: &GoalFile, proof: &Proof) -> String {
    // Every criterion proven, and done would refuse all the same: why, and what to do.
    if goal.status != Status::Blocked
        && let Some(why) = proof.refusal()
    {
        return why.to_string();
    }
    match goal.status {
        Status::Blocked => "resolve the blocker, then `goal resume`".into(),
        Status::Complete if proof.complete() => proof.done_to_finish(),
        Status::Complete => format!(
            "the goal is marked complete but {}/{} criteria are proven: set it back with `goal resume`, then prove the rest",
            proof.proven,
            goal.criteria.len()
        ),
        Status::InProgress if goal.criteria.is_empty() => {
            "write the acceptance criteria: `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`".into()
        }
        Status::InProgress if proof.complete() => {
            format!("every criterion is proven: {}", proof.done_step())
        }
        Status::InProgress => proof
            .criteria
            .iter()
            .find(|c| c.state != ProofState::Proven)
            .map(|c| c.next_step())
            .unwrap_or_default(),
    }
}
