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

fn refusal(agent: &str, command: &str) -> Error {
    Error::refused(
        format!("a confirmation is the person's: ask them to run `{command}`"),
        format!(
            "this environment is marked as the agent's ({agent}): stop, tell the person what needs confirming and why, and let them run `{command}`"
        ),
    )
}
