//! `goal status`: the goal, its criteria with evidence, stagnation and retries.

use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::Status;
use crate::ops::status::{StatusView, view};
use crate::proof::ProofState;
use crate::workspace::Workspace;

/// Show the active goal: status, iteration, each criterion with its evidence, passing X/Y,
/// current phase, stagnation verdict and retries. Exit 1 when there is no goal.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = match ws
        .read_goal(crate::workspace::Part::View)
        .and_then(|g| g.ok_or_else(|| ws.no_goal()))
    {
        Err(e @ crate::error::Error::NoGoal { .. }) if ctx.json => {
            // No goal is an answer too: the same keys a script reads, saying so (exit 1).
            ctx.emit_json(&serde_json::json!({
                "active": false,
                "goal": null,
                "status": null,
                "file": ws.goal_rel.display().to_string(),
                "next": e.hint(),
                "detached": ws.repo.head_detached(),
                "hosts": crate::ops::status::hosts(&ws),
            }))?;
            // The error itself is reported as any other (stderr, its exit code); the document
            // is written already, so no error document follows it.
            return Err(e);
        }
        Err(e @ crate::error::Error::NoGoal { .. }) => {
            // Whether a host's hooks run here is worth saying with no goal too.
            for host in crate::ops::status::hosts(&ws) {
                ctx.say(format!("Agent host {}", host.line()));
            }
            return Err(e);
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
    print_head(ctx, &goal, &v);
    print_criteria(ctx, &goal, &v);
    print_tail(ctx, &v);
    Ok(0)
}

/// The goal, its status and figures, settings, mutation record and phase.
fn print_head(ctx: &Ctx, goal: &crate::goal_file::GoalFile, v: &StatusView) {
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
    let settings = goal.settings.non_default();
    if !settings.is_empty() {
        ctx.say(format!(
            "Settings (GOAL.md, not the defaults): {}",
            settings.join("; ")
        ));
    }
    if let Some(m) = &v.mutation {
        ctx.say(m.line());
    }
    if let Some(phase) = &v.phase {
        ctx.say(format!("Current phase: {phase}"));
    }
    if v.criteria.is_empty() {
        ctx.say("Criteria are still to be written: add each with `goal criteria add \"<observable outcome>\"`.");
    }
}

/// Each criterion under its phase, with its state and what to run next.
fn print_criteria(ctx: &Ctx, goal: &crate::goal_file::GoalFile, v: &StatusView) {
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
        let kind = match (c.kind, c.red) {
            ("guard", _) => " [guard]".to_string(),
            (_, Some(red)) => format!(" [red: {}]", red.as_str()),
            _ => String::new(),
        };
        ctx.say(format!(
            "  {mark} {}. {} — {}{kind}",
            c.number,
            c.text,
            criterion_state(ctx, c)
        ));
    }
}

fn criterion_state(ctx: &Ctx, c: &crate::ops::status::CriterionView) -> String {
    match (c.state, &c.evidence, &c.rerun_line) {
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
    }
}

/// The next step, the blocked reasons, stagnation and retries.
fn print_tail(ctx: &Ctx, v: &StatusView) {
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
    for host in &v.hosts {
        ctx.say(format!("Agent host {}", host.line()));
    }
}
