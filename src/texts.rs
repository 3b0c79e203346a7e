//! The texts agents read of the goal's state: the injection before every turn, the original
//! continuation prompt, the save-progress directive, re-run lines. Pure.

use crate::goal_file::{GoalFile, Status};
use crate::proof::{Proof, ProofState};
use crate::stagnation::STRATEGY_PROMPT;

/// How a criterion is proven, test first, as the agents are told it (the Claude adapter's request
/// for criteria and `goal run`'s prompt; `goal inject`'s text does not carry it).
/// What the agent is told when the goal's `mutants` setting is on: what a survivor means.
pub const MUTANTS_ON: &str = "Mutation check on: `goal done` reverts each change you made to the code and mutates the functions you changed, whole (code kept but bypassed under test shows survivors); every change must turn an acceptance test red, and the tests must kill its mutants. A survivor (file:line, the mutation) is a test to write, never a test to weaken; an unneeded change is code to test or remove. `goal verify --mutants` shows them.";

pub const TEST_FIRST: &str = "Test first: write or name the test of each criterion before the code, run `goal verify -c N` and see it fail, then make it pass; never edit a test to make it pass. A `--verify` criterion must be seen failing on the code before the goal and passing at the end (if you never ran it failing, `goal done` runs it on the old code itself); use `--guard \"<command>\"` only for what must stay green (a regression suite, a linter): a goal whose criteria are all guards is refused.";

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

/// The line `goal done` prints on success, for a judge that reads only the transcript (Claude
/// Code's `/goal`): the goal and the git tree id its evidence is bound to.
pub fn proof_complete_line(goal: &str, tree: &str) -> String {
    format!("GOAL-PROOF: complete {goal} {tree}")
}

/// The line that ends the Claude hook's injected context and every Stop block reason while the
/// goal is not done: the proven figure and the same next step `goal status` gives.
pub fn proof_open_line(goal: &GoalFile, proof: &Proof) -> String {
    format!(
        "GOAL-PROOF: open {}/{} {}",
        proof.proven,
        goal.criteria.len(),
        crate::ops::status::next_step(goal, proof)
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
                text.push_str(&done_runs_line(proof));
            } else if let Some(why) = proof.refusal() {
                text.push_str(&format!(
                    "Every criterion is proven, but `goal done` would refuse: {why}.\n"
                ));
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
                text.push_str(&done_runs_line(proof));
            } else if let Some(why) = proof.refusal() {
                text.push_str(&format!(
                    "Marked complete and every criterion is proven, but `goal done` would refuse: {why}.\n"
                ));
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

/// The line that says which runs `goal done` will make first, when it has some to make
/// ("" otherwise): the extra line after "run `goal done`".
fn done_runs_line(proof: &Proof) -> String {
    match proof.done_runs() {
        Some(runs) => format!("`goal done`: {runs}.\n"),
        None => String::new(),
    }
}

/// One line per stale or failing criterion: the command that proves it again.
pub fn rerun_lines(proof: &Proof) -> String {
    proof
        .criteria
        .iter()
        .filter(|c| matches!(c.state, ProofState::Stale | ProofState::Failing))
        .map(|c| format!("{}\n", c.next_step()))
        .collect()
}
