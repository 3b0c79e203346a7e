//! `goal status`: the goal, its criteria with evidence, stagnation and retries.

use serde::Serialize;

use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::{GoalFile, Status};
use crate::history;
use crate::stagnation::Verdict;
use crate::workspace::Workspace;

/// Show the active goal: status, iteration, each criterion with its evidence, passing X/Y,
/// current phase, stagnation verdict and retries. Exit 1 when there is no goal.
#[derive(Debug, clap::Args)]
pub struct Args {}

#[derive(Debug, Serialize)]
pub struct CriterionView {
    pub number: usize,
    pub text: String,
    pub passed: bool,
    /// The id of the fresh passing evidence record, or null.
    pub evidence: Option<String>,
    pub phase: Option<usize>,
}

#[derive(Debug, Serialize)]
pub struct RetryView {
    pub retries: u32,
    pub max: u32,
}

#[derive(Debug, Serialize)]
pub struct StatusView {
    pub goal: String,
    pub status: Status,
    pub iteration: u64,
    pub passing: usize,
    pub total: usize,
    pub criteria: Vec<CriterionView>,
    pub phase: Option<String>,
    pub stagnation: Verdict,
    pub retry: RetryView,
    pub blocked: Option<Vec<String>>,
    pub file: String,
}

/// Gather everything `status` shows (also used by the agent adapters).
pub fn view(ws: &Workspace, goal: &GoalFile) -> Result<StatusView> {
    let ledger = ws.ledger()?;
    // Hashing the working tree is the costly part: only do it when evidence could be fresh.
    let tree = if ledger.records.is_empty() {
        None
    } else {
        Some(ws.worktree_tree()?.to_string())
    };
    let criteria = goal
        .criteria
        .iter()
        .map(|c| CriterionView {
            number: c.number,
            text: c.text.clone(),
            passed: c.passed,
            evidence: tree
                .as_deref()
                .and_then(|t| ledger.proof(c.number, &c.text, t).ok())
                .map(|r| r.id.clone()),
            phase: c.phase.map(|p| p + 1),
        })
        .collect();
    let retry = ws.retry_state();
    Ok(StatusView {
        goal: goal.goal.clone(),
        status: goal.status,
        iteration: goal.iteration,
        passing: goal.passing_count(),
        total: goal.criteria.len(),
        criteria,
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
    })
}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    let v = view(&ws, &goal)?;
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
        "Status: {status} · iteration {} · {}/{} criteria passing",
        v.iteration, v.passing, v.total
    ));
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
        let evidence = match (&c.evidence, c.passed) {
            (Some(id), _) => format!("  (evidence {id})"),
            (None, true) => "  (no fresh evidence)".to_string(),
            (None, false) => String::new(),
        };
        ctx.say(format!("  {mark} {}. {}{evidence}", c.number, c.text));
    }
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
