//! `goal inject` and `goal continuation`: the state-injection texts of the seeds.

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, Status};
use crate::proof::{Proof, State};
use crate::stagnation::STRATEGY_PROMPT;
use crate::workspace::Workspace;

/// Print the goal's state for an agent's context (before every turn). Prints nothing and exits 0
/// when there is no goal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The share of the context window in use (0–1; a number above 1 is read as a percentage);
    /// above 0.8 the save-progress directive is added.
    #[arg(long, value_name = "F")]
    pub context_usage: Option<f64>,
}

/// Print the fixed two-line continuation prompt (Chinese; English with `git config goal.language
/// en`).
#[derive(Debug, clap::Args)]
pub struct ContinuationArgs {}

/// Context usage above this share of the window asks the agent to save progress.
pub const CONTEXT_LIMIT: f64 = 0.8;

/// The seed's continuation prompt.
pub fn continuation(goal: &GoalFile, proven: usize) -> String {
    format!(
        "🔄 目标状态已保存至 .agents/goal/GOAL.md\n当前进度：{}/{} criteria 通过，第 {} 轮迭代。\n",
        proven,
        goal.criteria.len(),
        goal.iteration
    )
}

/// The continuation prompt's English twin (`goal.language = en`).
pub fn continuation_en(goal: &GoalFile, proven: usize) -> String {
    format!(
        "🔄 Goal state saved to .agents/goal/GOAL.md\nProgress: {}/{} criteria passed, iteration {}.\n",
        proven,
        goal.criteria.len(),
        goal.iteration
    )
}

/// The save-progress directive for a nearly full context window.
pub fn save_progress(goal: &GoalFile, proven: usize) -> String {
    format!(
        "Context window is over 80% full: save progress now. Before anything else, record this turn's work with `goal iterate -m \"<what was done and verified>\"` so .agents/goal/GOAL.md holds the current state, then end your reply with exactly:\n{}",
        continuation(goal, proven)
    )
}

/// The injection text for a goal in any state; the progress figure is the proven count.
pub fn injection(goal: &GoalFile, proof: &Proof, context_usage: Option<f64>) -> String {
    let mut text = format!(
        "[goal-driven-loop] ACTIVE GOAL\n{}\nProgress: {}/{} criteria passed, iteration {}\n",
        goal.goal,
        proof.proven,
        goal.criteria.len(),
        goal.iteration
    );
    if let Some(phase) = goal.current_phase() {
        text.push_str(&format!(
            "Current phase: Phase {}: {}\n",
            phase.number, phase.name
        ));
    }
    match goal.status {
        Status::InProgress => {
            if goal.criteria.is_empty() {
                text.push_str("Criteria are still to be written: add each, pinned to the test that proves it, with `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`.\n");
            }
            text.push_str("Next step: read .agents/goal/GOAL.md and continue iteration\n");
            if proof.complete() {
                text.push_str("Every criterion is proven: run `goal done` to finish.\n");
            }
        }
        Status::Blocked => {
            let blocker = goal
                .blocked
                .as_ref()
                .map(|b| b.join("; "))
                .filter(|b| !b.is_empty());
            text.push_str(&format!(
                "Blocked: {}\n",
                blocker.as_deref().unwrap_or("(no reason recorded)")
            ));
            text.push_str(STRATEGY_PROMPT);
            text.push_str("\nWhen the blocker is resolved, run `goal resume`.\n");
        }
        Status::Complete => {
            if proof.complete() {
                text.push_str("Complete: every criterion is proven. Run `goal done` to finish (clean-up checks, summary).\n");
            } else {
                text.push_str(&format!(
                    "Marked complete, but {}/{} criteria are proven on this code: set it back with `goal resume`, prove the rest, then run `goal done`.\n",
                    proof.proven,
                    goal.criteria.len()
                ));
            }
        }
    }
    if context_usage.is_some_and(|u| u > CONTEXT_LIMIT) {
        text.push_str(&save_progress(goal, proof.proven));
    }
    text.push_str(&rerun_lines(proof));
    text
}

/// One line per stale or failing criterion: the command that proves it again.
pub fn rerun_lines(proof: &Proof) -> String {
    proof
        .criteria
        .iter()
        .filter(|c| matches!(c.state, State::Stale | State::Failing))
        .map(|c| format!("{}\n", c.next_step()))
        .collect()
}

/// Accept 0–1, or a percentage above 1 (Pi reports 0–100, more when a window overflows).
fn usage_share(value: f64) -> Result<f64> {
    if !value.is_finite() || value < 0.0 {
        return Err(Error::usage(
            format!("--context-usage {value} is not a share of the context window"),
            "give a number from 0 to 1 (or a percentage from 0 to 100), e.g. `--context-usage 0.85`",
        ));
    }
    Ok(if value > 1.0 { value / 100.0 } else { value })
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let usage = args.context_usage.map(usage_share).transpose()?;
    // Outside a repository there is no goal either: nothing to inject.
    let ws = match Workspace::open(ctx) {
        Err(Error::NotARepo { .. }) => return Ok(0),
        other => other?,
    };
    let Some(goal) = ws.read_goal_for_view()? else {
        return Ok(0);
    };
    let proof = ws.proof(&goal)?;
    print!("{}", injection(&goal, &proof, usage));
    Ok(0)
}

pub fn run_continuation(ctx: &Ctx, _args: ContinuationArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    // The progress figure is the proven count, as everywhere.
    let proven = ws.proof(&goal)?.proven;
    match ws.config.language {
        crate::config::Language::Zh => print!("{}", continuation(&goal, proven)),
        crate::config::Language::En => print!("{}", continuation_en(&goal, proven)),
    }
    Ok(0)
}
