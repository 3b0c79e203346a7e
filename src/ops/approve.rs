//! Pins a person approves. A pin is a command `goal` runs; under `goal mcp` (the agent's mark
//! `mcp`) an agent given no shell must not get one through `goal`, so a pin runs there only once a
//! person approved its exact command: with `goal criteria approve N` in their own terminal, by
//! answering the MCP client's question (elicitation), or by writing the pin themselves with an
//! unmarked `goal init` / `goal criteria add|pin|edit`. Approvals are kept per repository in the
//! common git dir, outside the work tree, like the witness.

use std::collections::BTreeSet;
use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::pin;
use crate::workspace::Workspace;

/// One approval: the pin's command as `goal` renders it, the criterion it was approved for, when
/// and how (`person`: the command or the pin written unmarked; `elicitation`: the MCP client's
/// question answered).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Approval {
    pub command: String,
    pub criterion: usize,
    pub at: String,
    pub by: String,
}

/// A pinned criterion whose command no person has approved.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Pending {
    pub criterion: usize,
    pub command: String,
}

/// What `goal criteria approve N` did.
#[derive(Debug, Serialize)]
pub struct Approved {
    pub criterion: usize,
    pub command: String,
    /// It was approved before: nothing was written.
    pub already: bool,
}

/// Whether this process runs for `goal mcp`.
pub fn under_mcp() -> bool {
    crate::person::agent().as_deref() == Some(crate::person::MCP_AGENT)
}

/// The approved commands of the repository.
pub fn approved(ws: &Workspace) -> BTreeSet<String> {
    std::fs::read_to_string(crate::store::approvals_path(&ws.repo))
        .map(|text| {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Approval>(l).ok())
                .map(|a| a.command)
                .collect()
        })
        .unwrap_or_default()
}

/// The pinned criteria among `numbers` (every criterion when empty) whose command no person
/// approved. A number out of range is left to the command to refuse.
pub fn pending(ws: &Workspace, goal: &GoalFile, numbers: &[usize]) -> Vec<Pending> {
    let approved = approved(ws);
    let mut out: Vec<Pending> = Vec::new();
    for (i, c) in goal.criteria.iter().enumerate() {
        let number = i + 1;
        if !numbers.is_empty() && !numbers.contains(&number) {
            continue;
        }
        if let Some(argv) = pin::argv(&c.text) {
            let command = pin::render(&argv);
            if !approved.contains(&command) {
                out.push(Pending {
                    criterion: number,
                    command,
                });
            }
        }
    }
    out
}

/// Under `goal mcp`: refuse a command given to run (`given`), and any pin among `numbers` (every
/// pin when empty) that no person approved. Elsewhere nothing is refused.
pub fn require_approved(
    ws: &Workspace,
    goal: &GoalFile,
    numbers: &[usize],
    given: bool,
) -> Result<()> {
    if !under_mcp() {
        return Ok(());
    }
    if given {
        return Err(Error::refused(
            "goal mcp runs no command it is given: only pins a person approved",
            "pin the test with `goal_criteria_add` (its `verify`), then ask the person to approve it (they run `goal criteria approve N` in their own terminal)",
        ));
    }
    match pending(ws, goal, numbers).as_slice() {
        [] => Ok(()),
        pending => Err(not_approved(pending)),
    }
}

/// The refusal naming each pin still to approve and the person's command for it.
fn not_approved(pending: &[Pending]) -> Error {
    let named: Vec<String> = pending
        .iter()
        .map(|p| format!("criterion {}'s pin `{}`", p.criterion, p.command))
        .collect();
    let commands: Vec<String> = pending
        .iter()
        .map(|p| format!("`goal criteria approve {}`", p.criterion))
        .collect();
    Error::refused(
        format!(
            "{} not approved by a person: goal mcp runs no pin before a person approves it",
            named.join(", ")
        ),
        format!(
            "ask the person to read the command and approve it: they run {} in their own terminal (not one the agent runs)",
            commands.join(" and ")
        ),
    )
}

/// Add an approval of criterion `criterion`'s `command` (`by`: who approved it).
pub fn record(ws: &Workspace, criterion: usize, command: &str, by: &str) -> Result<()> {
    let path = crate::store::approvals_path(&ws.repo);
    let entry = Approval {
        command: command.to_string(),
        criterion,
        at: crate::context::now_rfc3339(),
        by: by.to_string(),
    };
    let line =
        serde_json::to_string(&entry).map_err(|e| Error::internal("write the pin approval", e))?;
    let mut file = std::fs::File::options()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(Error::io("cannot open", &path))?;
    file.write_all(format!("{line}\n").as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(Error::io("cannot write", &path))
}

/// `goal criteria approve N`: the person approves criterion N's pin. Refused where the agent's
/// mark is set, and for a criterion with no pin.
pub fn approve(ws: &Workspace, number: usize) -> Result<Approved> {
    let goal = ws.goal()?;
    let number = super::criterion_number(&goal, number)?;
    let Some(argv) = pin::argv(&goal.criteria[number - 1].text) else {
        return Err(Error::usage(
            format!("criterion {number} has no pin: there is no command to approve"),
            format!("pin its test first with `goal criteria pin {number} -- <test command>`"),
        ));
    };
    let command = pin::render(&argv);
    if let Some(agent) = crate::person::agent() {
        return Err(Error::refused(
            format!(
                "approving a pin is the person's: ask them to run `goal criteria approve {number}` in their own terminal"
            ),
            format!(
                "this environment is marked as the agent's ({agent}): tell the person what `{command}` runs and why; they read it and run `goal criteria approve {number}` in a terminal without the mark"
            ),
        ));
    }
    let already = approved(ws).contains(&command);
    if !already {
        record(ws, number, &command, "person")?;
    }
    Ok(Approved {
        criterion: number,
        command,
        already,
    })
}

/// The pins a person's own command wrote (criteria texts in `after` that were not in `before`),
/// approved: a person who types a pin has read it. Nothing happens where the agent's mark is set.
pub fn approve_written(ws: &Workspace, before: &[String], after: &[String]) -> Result<()> {
    if crate::person::agent().is_some() {
        return Ok(());
    }
    let known = approved(ws);
    for (i, text) in after.iter().enumerate() {
        if before.contains(text) {
            continue;
        }
        if let Some(argv) = pin::argv(text) {
            let command = pin::render(&argv);
            if !known.contains(&command) {
                record(ws, i + 1, &command, "person")?;
            }
        }
    }
    Ok(())
}
