//! `goal retry`: record a failed attempt and print (or wait out) the backoff delay.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use crate::context::Ctx;
use crate::error::Result;
use crate::workspace::Workspace;

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

pub const ALTERNATIVE_PROMPT: &str = "Retries exhausted. The current approach keeps failing. Try an alternative approach:\n- Different tool or library\n- Refactor before retry\n- Split the failing criterion into sub-steps";

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let out = crate::ops::retry::record_failure(
        &ws,
        crate::ops::retry::Options {
            strategy: args.strategy.clone(),
            reason: args.reason.clone(),
        },
    )?;
    if out.blocked {
        if ctx.json {
            ctx.emit_json(&out)?;
        } else {
            ctx.say(ALTERNATIVE_PROMPT);
        }
        return Ok(1);
    }
    let n = out.retry;
    let max_retries = ws.config.max_retries;
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
            max_retries,
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
    let tty = std::io::stderr().is_terminal() && !ctx.quiet();
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
