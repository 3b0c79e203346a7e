//! `goal retry`: record a failed attempt and print (or wait out) the backoff delay.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use serde::Serialize;

use super::require_in_progress;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::retry::{Attempt, Backoff, Outcome};
use crate::workspace::{Workspace, write_atomic};

/// Record one failed attempt of the current iteration (a `failure` in the retry episode) and
/// print the backoff delay: min(30·2^(n-1), 300) s, 10 retries per iteration. The retry after
/// the last one blocks the goal instead (a commit) and exits 1.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also wait the delay out (a countdown on a TTY).
    #[arg(long)]
    pub sleep: bool,
    /// The strategy this attempt used (recorded as its strategyId).
    #[arg(long, value_name = "ID")]
    pub strategy: Option<String>,
    /// What failed (printed, and written to the Blocked section when retries run out).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

#[derive(Debug, Serialize)]
struct RetryOut {
    retry: u32,
    delay_s: u64,
    cumulative_s: u64,
    remaining: u32,
    blocked: bool,
}

pub const ALTERNATIVE_PROMPT: &str = "Retries exhausted. The current approach keeps failing. Try an alternative approach:\n- Different tool or library\n- Refactor before retry\n- Split the failing criterion into sub-steps";

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    if args
        .strategy
        .as_deref()
        .is_some_and(|s| s.trim().is_empty())
    {
        return Err(Error::InvalidInput {
            message: "--strategy is blank".into(),
        });
    }
    let lock = ws.lock()?;
    let mut goal = ws.goal()?;
    require_in_progress(&goal, "record a retry")?;
    let backoff = Backoff {
        initial: ws.config.backoff_initial,
        factor: ws.config.backoff_factor,
        max: ws.config.backoff_max,
        max_retries: ws.config.max_retries,
    };
    let mut state = ws.retry_state();
    let n = state.failures() + 1;
    state.attempts.push(Attempt {
        outcome: Outcome::Failure,
        strategy_id: args.strategy.clone(),
    });
    if n > backoff.max_retries {
        let reason = args
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
        super::escalate(ctx, &ws, &mut goal, subject, &message, retry_file)?;
        let out = RetryOut {
            retry: n,
            delay_s: 0,
            cumulative_s: backoff.cumulative(backoff.max_retries),
            remaining: 0,
            blocked: true,
        };
        if ctx.json {
            ctx.emit_json(&out)?;
        } else {
            ctx.say(ALTERNATIVE_PROMPT);
        }
        return Ok(1);
    }
    write_atomic(&ws.abs(&ws.retry_rel()), state.render().as_bytes())?;
    drop(lock);
    let out = RetryOut {
        retry: n,
        delay_s: backoff.delay(n),
        cumulative_s: backoff.cumulative(n),
        remaining: backoff.max_retries - n,
        blocked: false,
    };
    if ctx.json {
        ctx.emit_json(&out)?;
    } else {
        let reason = args
            .reason
            .as_deref()
            .map(|r| format!(" — {r}"))
            .unwrap_or_default();
        ctx.say(format!(
            "Retry {n}/{}: wait {}s before trying again (cumulative {:.1} min, {} left){reason}",
            backoff.max_retries,
            out.delay_s,
            out.cumulative_s as f64 / 60.0,
            out.remaining
        ));
        if !args.sleep {
            ctx.say(format!(
                "Wait it out with `sleep {}` (or `goal retry --sleep` next time).",
                out.delay_s
            ));
        }
    }
    if args.sleep {
        wait(ctx, out.delay_s);
    }
    Ok(0)
}

/// Sleep `seconds` (scaled by GOAL_TIME_SCALE, for tests and demos), counting down on a TTY.
fn wait(ctx: &Ctx, seconds: u64) {
    let scale: f64 = std::env::var("GOAL_TIME_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| *s >= 0.0)
        .unwrap_or(1.0);
    let total = Duration::from_secs_f64(seconds as f64 * scale);
    let tty = std::io::stderr().is_terminal() && !ctx.quiet;
    let step = Duration::from_secs(1).min(total.max(Duration::from_millis(1)));
    let mut left = total;
    while !left.is_zero() {
        if tty {
            eprint!(
                "\rgoal: retrying in {:>4}s ",
                left.as_secs_f64().ceil() as u64
            );
            let _ = std::io::stderr().flush();
        }
        let nap = step.min(left);
        std::thread::sleep(nap);
        left = left.saturating_sub(nap);
    }
    if tty {
        eprintln!("\rgoal: retry now.          ");
    }
}
