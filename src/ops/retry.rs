//! Record one failed attempt of the current iteration in the retry guard; the one after the last
//! blocks the goal in an escalation commit.

use crate::error::{Error, Result};
use crate::retry::{Attempt, AttemptOutcome, Backoff};
use crate::workspace::{Workspace, write_atomic};

pub struct Options {
    /// The strategy this attempt used.
    pub strategy: Option<String>,
    /// What failed.
    pub reason: Option<String>,
}

/// The retry recorded.
#[derive(Debug, serde::Serialize)]
pub struct Retried {
    pub retry: u32,
    pub delay_s: u64,
    pub cumulative_s: u64,
    pub remaining: u32,
    /// Retries ran out: the goal is blocked now.
    pub blocked: bool,
}

pub fn record_failure(ws: &Workspace, options: Options) -> Result<Retried> {
    if options
        .strategy
        .as_deref()
        .is_some_and(|s| s.trim().is_empty())
    {
        return Err(Error::InvalidInput {
            message: "--strategy is blank".into(),
        });
    }
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    super::require_in_progress(&goal, "record a retry")?;
    let backoff = Backoff {
        initial: ws.config.backoff_initial,
        factor: ws.config.backoff_factor,
        max: ws.config.backoff_max,
        max_retries: ws.config.max_retries,
    };
    let mut state = ws.retry_state();
    let n = state.failures() + 1;
    state.attempts.push(Attempt {
        outcome: AttemptOutcome::Failure,
        strategy_id: options.strategy.clone(),
    });
    if n > backoff.max_retries {
        let reason = options
            .reason
            .as_deref()
            .map(|r| format!(" (last failure: {r})"))
            .unwrap_or_default();
        let message = format!(
            "Retries exhausted: {} retries in iteration {} failed{reason}; try an alternative approach",
            backoff.max_retries, goal.iteration
        );
        let subject = format!(
            "escalate: retries exhausted in iteration {}",
            goal.iteration
        );
        let retry_file = vec![(ws.retry_rel(), Some(state.render().into_bytes()))];
        super::escalate(ws, &mut goal, subject, &message, retry_file)?;
        return Ok(Retried {
            retry: n,
            delay_s: 0,
            cumulative_s: backoff.cumulative(backoff.max_retries),
            remaining: 0,
            blocked: true,
        });
    }
    write_atomic(&ws.abs(&ws.retry_rel()), state.render().as_bytes())?;
    Ok(Retried {
        retry: n,
        delay_s: backoff.delay(n),
        cumulative_s: backoff.cumulative(n),
        remaining: backoff.max_retries - n,
        blocked: false,
    })
}
