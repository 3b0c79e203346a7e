//! `--confirm` is the person's: refused in an environment marked as an agent's.

use crate::error::{Error, Result};

/// `--confirm` given in a marked environment: refused (exit 1), naming the command the person
/// runs.
pub fn check_confirm(confirm: bool, command: &str) -> Result<()> {
    match (confirm, crate::person::agent()) {
        (true, Some(agent)) => Err(refusal(&agent, command)),
        _ => Ok(()),
    }
}

/// Abandoning or replacing a goal is the person's too: refused in a marked environment (exit 1),
/// naming what the person runs. A hook that acts on the person's own words (an abandon phrase the
/// user typed) calls the operation itself and is not refused.
pub fn check_persons_choice(what: &str, command: &str) -> Result<()> {
    match crate::person::agent() {
        Some(agent) => Err(Error::refused(
            format!("{what} is the person's: ask them to run `{command}`"),
            format!(
                "this environment is marked as the agent's ({agent}): keep working on the goal, or stop and tell the person why it should be given up; they run `{command}` in their own terminal"
            ),
        )),
        None => Ok(()),
    }
}

fn refusal(agent: &str, command: &str) -> Error {
    Error::refused(
        format!("a confirmation is the person's: ask them to run `{command}`"),
        format!(
            "this environment is marked as the agent's ({agent}): stop, tell the person what needs confirming and why, and let them run `{command}` in another terminal (a command typed inside the agent's session, such as Gemini CLI's `!`, carries the mark too)"
        ),
    )
}
