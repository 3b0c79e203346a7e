//! `goal status`: the goal, its criteria with evidence, stagnation and retries.

use serde::Serialize;

use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::{GoalFile, Status};
use crate::history;
use crate::proof::{Proof, ProofState};
use crate::stagnation::StagnationVerdict;
use crate::workspace::Workspace;

/// Show the active goal: status, iteration, each criterion with its evidence, passing X/Y,
/// current phase, stagnation verdict and retries. Exit 1 when there is no goal.
#[derive(Debug, clap::Args)]
pub struct Args {}

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
    pub ledger: LedgerView,
    pub phase: Option<String>,
    pub stagnation: StagnationVerdict,
    pub retry: RetryView,
    pub blocked: Option<Vec<String>>,
    pub file: String,
    /// HEAD names a commit, not a branch: goal's commits would be on no branch.
    pub detached: bool,
}

/// Gather everything `status` shows (also used by the agent adapters).
pub fn view(ws: &Workspace, goal: &GoalFile) -> Result<StatusView> {
    let ledger = ws.ledger()?;
    let once = crate::ops::red::PlaceOnce::default();
    let reds = crate::ops::red::red_states(ws, goal, &ledger, &once)?;
    let proof = ws.proof_with(goal, &ledger)?.with_red(&reds);
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
    Ok(StatusView {
        active: true,
        goal: goal.goal.clone(),
        status: goal.status,
        iteration: goal.iteration,
        passing: goal.passing_count(),
        proven: proof.proven,
        total: goal.criteria.len(),
        criteria,
        next: match (proof.complete(), goal.status) {
            (true, Status::InProgress | Status::Complete) => {
                crate::ops::red::done_would_refuse(ws, goal, &once)?
                    .unwrap_or_else(|| next_step(goal, &proof))
            }
            _ => next_step(goal, &proof),
        },
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
    match goal.status {
        Status::Blocked => "resolve the blocker, then `goal resume`".into(),
        Status::Complete if proof.complete() => "run `goal done` to finish".into(),
        Status::Complete => format!(
            "the goal is marked complete but {}/{} criteria are proven: set it back with `goal resume`, then prove the rest",
            proof.proven,
            goal.criteria.len()
        ),
        Status::InProgress if goal.criteria.is_empty() => {
            "write the acceptance criteria: `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`".into()
        }
        Status::InProgress if proof.complete() => {
            "every criterion is proven: run `goal done`".into()
        }
        Status::InProgress => proof
            .criteria
            .iter()
            .find(|c| c.state != ProofState::Proven)
            .map(|c| c.next_step())
            .unwrap_or_default(),
    }
}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = match ws.goal_for_view() {
        Err(e @ crate::error::Error::NoGoal { .. }) if ctx.json => {
            // No goal is an answer too: the same keys a script reads, saying so (exit 1).
            ctx.emit_json(&serde_json::json!({
                "active": false,
                "goal": null,
                "status": null,
                "file": ws.goal_rel.display().to_string(),
                "next": e.hint(),
                "detached": ws.repo.head_detached(),
            }))?;
            crate::report(&e);
            return Ok(e.exit_code());
        }
        goal => goal?,
    };
    let v = view(&ws, &goal)?;
    if let Some(problem) = &v.ledger.problem {
        eprintln!(
            "goal: warning: {} does not verify: {problem}; its records prove nothing",
            ws.evidence_rel().display()
        );
        eprintln!(
            "hint: {}",
            crate::store::broken_ledger_hint(&ws.evidence_rel())
        );
    }
    if ctx.json {
        ctx.emit_json(&v)?;
        return Ok(0);
    }
    let status = match v.status {
        Status::InProgress => ctx.yellow("in-progress"),
        Status::Blocked => ctx.red("blocked"),
        Status::Complete => ctx.green("complete"),
    };
    ctx.say(format!("{} {}", ctx.bold("Goal:"), v.goal));
    ctx.say(format!(
        "Status: {status} · iteration {} · {}/{} criteria proven ({} ticked)",
        v.iteration, v.proven, v.total, v.passing
    ));
    if v.detached {
        ctx.say(ctx.yellow(crate::workspace::DETACHED_WARNING));
    }
    if let Some(phase) = &v.phase {
        ctx.say(format!("Current phase: {phase}"));
    }
    if v.criteria.is_empty() {
        ctx.say("Criteria are still to be written: add each with `goal criteria add \"<observable outcome>\"`.");
    }
    let mut last_phase = None;
    for c in &v.criteria {
        if c.phase.is_some() && c.phase != last_phase {
            if let Some(p) = c.phase.and_then(|p| goal.phases.get(p - 1)) {
                ctx.say(format!("  Phase {}: {}", p.number, p.name));
            }
            last_phase = c.phase;
        }
        let mark = if c.passed {
            ctx.green("[x]")
        } else {
            "[ ]".to_string()
        };
        let state = match (c.state, &c.evidence, &c.rerun_line) {
            (ProofState::Proven, Some(id), _) => ctx.green(&format!("proven (evidence {id})")),
            (ProofState::PassesOnBase, _, _) => ctx.red(&format!(
                "passes-on-base — {}; write a test that fails there (`goal verify --red -c {}`)",
                c.why
                    .as_deref()
                    .unwrap_or("its tests pass on the code before the goal"),
                c.number
            )),
            (ProofState::Stale, _, Some(line)) => {
                ctx.yellow(&format!("stale — the code changed since; re-run `{line}`"))
            }
            (ProofState::Failing, _, line) => ctx.red(&format!(
                "failing — {}{}",
                c.why.as_deref().unwrap_or("the last run failed"),
                line.as_ref()
                    .map(|l| format!("; after fixing, `{l}`"))
                    .unwrap_or_default()
            )),
            (_, _, Some(line)) => format!("open — `{line}`"),
            _ => "open".to_string(),
        };
        let kind = match (c.kind, c.red) {
            ("guard", _) => " [guard]".to_string(),
            (_, Some(red)) => format!(" [red: {}]", red.as_str()),
            _ => String::new(),
        };
        ctx.say(format!("  {mark} {}. {} — {state}{kind}", c.number, c.text));
    }
    ctx.say(format!("Next: {}", v.next));
    if let Some(blocked) = &v.blocked {
        ctx.say("Blocked:");
        for b in blocked {
            ctx.say(format!("  - {b}"));
        }
    }
    let s = &v.stagnation;
    let yn = |b: bool| if b { "yes" } else { "no" };
    ctx.say(format!(
        "Stagnation: {} (S1 criteria passing count flat: {}, S2 no progress words: {}, S3 no net code change: {}; auto-recoveries: {})",
        if s.signals.stagnant { ctx.red("stagnant") } else { "not stagnant".to_string() },
        yn(s.signals.s1),
        yn(s.signals.s2),
        yn(s.signals.s3),
        s.recoveries
    ));
    ctx.say(format!(
        "Retries this iteration: {}/{}",
        v.retry.retries, v.retry.max
    ));
    Ok(0)
}
