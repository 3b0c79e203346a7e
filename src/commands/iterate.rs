//! `goal iterate`: record an iteration, commit the work, judge stagnation, escalate.

use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::ops::iterate::Iterated;
use crate::stagnation::{STRATEGY_PROMPT, StagnationVerdict};
use crate::workspace::Workspace;

/// Record iteration N+1: append it to the Progress Log (one bullet per -m), commit the goal files
/// and all other changes of the working tree (as `git add -A`), then judge stagnation.
///
/// Exit 1 when stagnation escalates and the goal is blocked.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What was done or found (repeatable; one bullet each).
    #[arg(short = 'm', long = "message", value_name = "LINE", required = true)]
    pub messages: Vec<String>,
    /// Commit the goal files only (you committed your code yourself).
    #[arg(long)]
    pub goal_only: bool,
    #[command(flatten)]
    pub commit: super::CommitFlags,
    /// The `goal run` this iteration belongs to (set by `goal run` for its agent).
    #[arg(long, hide = true, env = "GOAL_RUN_ID", value_name = "ID")]
    pub run_id: Option<String>,
    /// The agent of that run (set by `goal run`: a run may fail over between agents).
    #[arg(long, hide = true, env = "GOAL_RUN_AGENT", value_name = "NAME")]
    pub run_agent: Option<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let done = crate::ops::iterate::iterate(
        &ws,
        crate::ops::iterate::Options {
            budget: None,
            messages: args.messages,
            goal_only: args.goal_only,
            run_id: args.run_id,
            run_agent: args.run_agent,
            usage: None,
        },
    )?;
    if ctx.json {
        print_json(ctx, &done)?;
    } else {
        print_text(ctx, &ws, &done);
    }
    if done.escalated.is_some() {
        return Ok(1);
    }
    Ok(0)
}

/// The iteration as `--json` shows it: its commit, the criteria proven and unticked, and the
/// stagnation verdict.
fn print_json(ctx: &Ctx, done: &Iterated) -> Result<()> {
    let Iterated {
        number,
        commit: oid,
        goal,
        proof,
        unticked,
        verdict,
        escalated,
    } = done;
    ctx.emit_json(&json!({
        "iteration": number,
        "commit": oid.to_string(),
        "passing": goal.passing_count(),
        "proven": proof.proven,
        "total": goal.criteria.len(),
        "unticked": unticked.iter().map(|p| serde_json::json!({
            "number": p.number,
            "state": p.state,
            "why": p.why,
            "rerun": p.rerun,
        })).collect::<Vec<_>>(),
        "stagnation": verdict,
        "prompt": verdict.signals.stagnant.then_some(STRATEGY_PROMPT),
        "escalated": escalated.is_some(),
        "status": goal.status,
    }))
}

/// The iteration for people: the ticks taken back, the commit, the new files and whether the
/// goal is stagnant.
fn print_text(ctx: &Ctx, ws: &Workspace, done: &Iterated) {
    let Iterated {
        number,
        commit: oid,
        goal,
        unticked,
        verdict,
        ..
    } = done;
    for p in unticked {
        let why = p
            .why
            .as_deref()
            .unwrap_or("not proven on the committed code");
        let rerun = match p.rerun_line() {
            Some(line) if !why.contains(line.as_str()) => format!("; re-run `{line}`"),
            _ => String::new(),
        };
        ctx.say(format!(
            "unticked criterion {} ({}): {why}{rerun}",
            p.number,
            p.state.as_str()
        ));
    }
    ctx.say(format!(
        "Iteration {number} recorded — committed {} · {}/{} criteria proven",
        short(*oid),
        goal.passing_count(),
        goal.criteria.len()
    ));
    super::print_added(ctx, ws, Some(*oid));
    print_stagnation(ctx, ws, verdict);
}

/// The stagnation verdict: stagnant, with the auto-recovery count and the strategy prompt, or
/// not, with the signals that say so.
fn print_stagnation(ctx: &Ctx, ws: &Workspace, verdict: &StagnationVerdict) {
    let s = verdict.signals;
    if s.stagnant {
        ctx.say(format!(
            "{} ({}) — auto-recovery {} of {}",
            ctx.red("stagnant"),
            crate::stagnation::explain(&s, ws.config.stagnation_window),
            verdict.recoveries,
            ws.config.escalate_after
        ));
        ctx.say(STRATEGY_PROMPT);
    } else {
        ctx.say(format!(
            "not stagnant ({})",
            crate::stagnation::explain(&s, ws.config.stagnation_window)
        ));
    }
}
