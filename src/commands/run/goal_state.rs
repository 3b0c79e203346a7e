//! The goal a run works on: started or checked at the start, and its state read after each turn.

use super::args::Args;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::ops;
use crate::runner::machine::GoalState;
use crate::workspace::Workspace;

/// The goal's state, as the loop needs it.
pub(super) fn goal_state(ws: &Workspace) -> Result<(GoalState, String)> {
    let Some(goal) = ws.read_goal(crate::workspace::Part::Whole)? else {
        // Gone: completed by `goal done` (its last commit says so) or abandoned.
        let complete = match ws.repo.head_id()? {
            Some(head) => ws
                .repo
                .commit_info(head)?
                .trailer("Goal-Status")
                .is_some_and(|s| s.trim() == "complete"),
            None => false,
        };
        let state = if complete {
            GoalState::Complete
        } else {
            GoalState::Gone
        };
        return Ok((state, "no goal".into()));
    };
    let proof = crate::ops::proof(ws, &goal)?;
    let summary = format!(
        "iteration {} · proven {}/{}",
        goal.iteration,
        proof.proven,
        goal.criteria.len()
    );
    let state = match goal.status {
        Status::Blocked => GoalState::Blocked,
        // Marked complete by hand: done is called only when it would agree; else the agent is
        // told what is missing (set it back with `goal resume`, prove the rest).
        Status::Complete => GoalState::InProgress {
            all_proven: proof.complete(),
            stagnant: false,
        },
        // Every criterion proven but refused all the same (weakened tests, guards only): `goal
        // done` is asked, so that what only a person can lift blocks the run at once.
        Status::InProgress => GoalState::InProgress {
            all_proven: !goal.criteria.is_empty()
                && (proof.complete() || proof.refusal().is_some()),
            stagnant: crate::history::stagnation(&ws.repo, &ws.goal_dir, &goal, &ws.config)?
                .signals
                .stagnant,
        },
    };
    Ok((state, summary))
}

/// Start the goal of `goal run "<goal>"`, or check that it is the active one.
pub(super) fn start_goal(ws: &Workspace, args: &Args) -> Result<()> {
    if check_goal(ws, args.goal.as_deref(), &args.criteria)?.is_some() {
        ops::init::init(
            ws,
            ops::init::Options {
                goal: args.goal.clone(),
                criteria: args.criteria.clone(),
                phases: Vec::new(),
                abandon_current: false,
                on_active: &|_| ops::init::OnActive::Keep,
            },
        )?;
    }
    Ok(())
}

/// Whether `goal run` may go on with this goal text (None: the active goal) and criteria: Some
/// with the text when the goal must be started first, None when the active goal is the one to
/// continue; refused when there is none, or another one is active.
pub(crate) fn check_goal(
    ws: &Workspace,
    text: Option<&str>,
    criteria: &[String],
) -> Result<Option<String>> {
    let Some(text) = text else {
        if ws.read_goal(crate::workspace::Part::Whole)?.is_none() {
            return Err(Error::refused(
                format!("no active goal ({} does not exist)", ws.goal_rel.display()),
                "start one with `goal run \"<goal>\" -c \"<criterion> (verify: `<test command>`)\" --agent <name>`",
            ));
        }
        return Ok(None);
    };
    if let Some(active) = ws.read_goal(crate::workspace::Part::Whole)? {
        if active.goal == crate::goal_file::one_line(text) {
            let texts = active.criteria_texts();
            let new: Vec<&String> = criteria
                .iter()
                .filter(|c| !texts.contains(&crate::goal_file::one_line(c)))
                .collect();
            if !new.is_empty() {
                return Err(Error::usage(
                    format!(
                        "the goal \"{}\" is already active, and -c does not add criteria to it ({} not among them)",
                        active.goal,
                        new.len()
                    ),
                    "add them with `goal criteria add \"<criterion>\" --verify \"<test command>\"`, then `goal run` (no goal text)",
                ));
            }
            return Ok(None);
        }
        return Err(Error::refused(
            format!("another goal is active: \"{}\"", active.goal),
            "continue it with `goal run` (no goal text), or replace it first with `goal init --replace \"<goal>\"`",
        ));
    }
    Ok(Some(text.to_string()))
}
