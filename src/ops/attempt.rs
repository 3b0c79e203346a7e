//! The retry guard's raw state in retry.json, changed as `goal attempt` asks: an attempt
//! recorded, the policy replaced, a new episode, everything cleared.

use crate::error::Result;
use crate::retry::{Attempt, Policy, RetryState};
use crate::workspace::{Workspace, write_atomic};

/// One change of the retry state.
#[derive(Debug, Clone)]
pub enum Change {
    /// Record an attempt.
    Add(Attempt),
    /// Replace the policy (None: keep it, only read it).
    Policy(Option<Policy>),
    /// Start a new episode: attempts cleared, policy kept.
    Episode,
    /// Clear attempts and policy.
    Clear,
}

/// The retry state as it is (the lock held, the goal there).
pub fn state(ws: &Workspace) -> Result<RetryState> {
    let _lock = ws.lock()?;
    ws.goal()?;
    Ok(ws.retry_state())
}

/// Make `change` and write retry.json when it changed anything; the state after it.
pub fn change(ws: &Workspace, change: Change) -> Result<RetryState> {
    let _lock = ws.lock()?;
    ws.goal()?;
    let mut state = ws.retry_state();
    let changed = match change {
        Change::Add(attempt) => {
            state.attempts.push(attempt);
            true
        }
        Change::Policy(Some(policy)) if policy != state.policy => {
            state.policy = policy;
            true
        }
        Change::Policy(_) => false,
        Change::Episode if !state.attempts.is_empty() => {
            state.attempts.clear();
            true
        }
        Change::Episode => false,
        Change::Clear => {
            state = RetryState::default();
            true
        }
    };
    if changed {
        write_atomic(&ws.abs(&ws.retry_rel()), state.render().as_bytes())?;
    }
    Ok(state)
}
