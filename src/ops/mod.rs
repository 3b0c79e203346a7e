//! One function per operation, `fn(&Workspace, Options) -> Result<Report>`: what a command does,
//! without its flags or its printing. Commands turn arguments into options and render the report;
//! `goal run` and the Claude hook call these on the workspace they hold.

pub mod abandon;
/// Pins a person approves before `goal mcp` runs them.
pub mod approve;
pub mod attempt;
pub mod block;
pub mod check;
/// `--confirm` refused in an agent's environment.
pub mod confirm;
pub mod criteria;
pub mod done;
/// The one verdict of every host's hook: session start, a prompt, a stop.
pub mod hook;
pub mod init;
pub mod iterate;
/// The goal's change under mutation: the hunk check, the tools, the `mutants` record.
pub mod mutants;
pub mod red;
pub mod report;
pub mod restore;
pub mod retry;
pub mod settings;
pub mod status;
pub mod verify;

use std::path::PathBuf;

use crate::context::now_rfc3339;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, Status};
use crate::repo::Oid;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

/// The short form of a commit id for people.
pub fn short(oid: Oid) -> String {
    crate::repo::short_id(&oid.to_string()).to_string()
}

/// Every criterion of `goal` judged on the working tree as it is now, with the red states of its
/// acceptance criteria: one whose last red run passed on the goal's base is not proven (what
/// status, inject, the hooks and `goal run` all say).
pub fn proof(ws: &Workspace, goal: &GoalFile) -> Result<crate::proof::Proof> {
    let ledger = ws.ledger()?;
    let once = red::PlaceOnce::default();
    let reds = red::red_states(ws, goal, &ledger, &once)?;
    judged(ws, goal, &ledger, &once, &reds)
}

/// [`proof`] from a ledger and red states already read: with them, and with what `goal done`
/// (without `--confirm`) would refuse of a goal whose every criterion is proven.
pub fn judged(
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &crate::evidence::Ledger,
    once: &red::PlaceOnce,
    reds: &[Option<crate::surface::judge::Red>],
) -> Result<crate::proof::Proof> {
    let proof = ws.proof_with(goal, ledger)?.with_red(reds);
    if proof.complete()
        && goal.status != Status::Blocked
        && let Some(why) = red::done_would_refuse(ws, goal, once)?
    {
        return Ok(proof.refused(why));
    }
    Ok(proof)
}

/// Parse a 1-based criterion number against the goal.
pub fn criterion_number(goal: &GoalFile, number: usize) -> Result<usize> {
    if number == 0 || number > goal.criteria.len() {
        return Err(Error::NoSuchCriterion {
            number,
            count: goal.criteria.len(),
        });
    }
    Ok(number)
}

/// Refuse to change a goal whose status does not allow it.
pub fn require_in_progress(goal: &GoalFile, what: &str) -> Result<()> {
    match goal.status {
        Status::InProgress => Ok(()),
        Status::Blocked => Err(Error::Blocked {
            doing: format!("cannot {what}"),
            hint: "see the Blocked section with `goal status`, then run `goal resume`".into(),
        }),
        Status::Complete => Err(Error::MarkedComplete {
            what: what.to_string(),
        }),
    }
}

/// Block the goal for a reason `goal` found itself (stagnation, retries exhausted): a Blocked
/// entry, an escalation commit (with `other` files), a line on stderr, and the notify command.
pub fn escalate(
    ws: &Workspace,
    goal: &mut GoalFile,
    subject: String,
    message: &str,
    other: Vec<(PathBuf, Option<Vec<u8>>)>,
) -> Result<Oid> {
    goal.set_blocked(message);
    goal.set_status(Status::Blocked);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(GoalAction::Escalate, subject);
    commit.body = vec![message.to_string()];
    commit.other = other;
    let oid = commit.make(ws, Some(goal), goal)?;
    crate::context::warn_line(format!(
        "goal: escalated: the goal \"{}\" is blocked — {message}",
        goal.goal
    ));
    crate::context::warn_line(
        "hint: read the Blocked section with `goal status`, change the approach, then `goal resume`",
    );
    notify(ws, &format!("goal blocked: {} — {message}", goal.goal));
    Ok(oid)
}

/// Run `goal.notify` with the message as its one argument (never through a shell's parsing of it).
pub fn notify(ws: &Workspace, message: &str) {
    let Some(command) = &ws.config.notify else {
        return;
    };
    let status = crate::child::status(
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{command} \"$1\""))
            .arg("goal-notify")
            .arg(message)
            .current_dir(ws.root())
            .stdin(std::process::Stdio::null()),
    );
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => crate::context::note(format!(
            "warning: notify command `{command}` exited {}",
            s.code().unwrap_or(-1)
        )),
        Err(e) => crate::context::note(format!(
            "warning: cannot run notify command `{command}`: {e}"
        )),
    }
}
