//! `goal attempt add|policy|judge|episode|clear|status`: the retry guard over retry.json.

use std::io::Read;

use serde_json::json;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::ops::attempt::{self, Change};
use crate::retry::{self, Attempt, AttemptOutcome, Policy};
use crate::workspace::Workspace;

/// The retry guard: caller-declared attempts of the current episode and a retry policy, judged
/// on request. State lives in .agents/goal/retry.json (raw data only).
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Record an attempt: success, failure, no_progress or unknown, with an optional strategy id.
    Add {
        outcome: String,
        #[arg(value_name = "STRATEGY_ID")]
        strategy_id: Option<String>,
    },
    /// Show the policy; `policy MAX [MAX_STRATEGY]` replaces it; `policy clear` empties it.
    Policy {
        #[arg(num_args = 0..=2, value_name = "MAX | clear")]
        values: Vec<String>,
    },
    /// Print the verdict JSON; exit 0 when a retry is allowed, 1 when not.
    Judge {
        /// Judge {"attempts": [...], "policy": {...}} from stdin; no state is read or written.
        #[arg(long)]
        stdin: bool,
    },
    /// Start a new episode: attempts cleared, policy kept (a no-op when empty).
    Episode,
    /// Clear attempts and policy (needs --yes).
    Clear {
        #[arg(long)]
        yes: bool,
    },
    /// The raw state, without judgement.
    Status,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::InvalidInput {
        message: message.into(),
    }
}

fn limit(text: &str) -> Result<u64> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(invalid(format!("`{text}` is not an integer ≥ 1"))),
    }
}

/// Print a verdict: the JSON alone on stdout, a reading on stderr. Exit 0 allowed, 1 not.
fn print_verdict(ctx: &Ctx, verdict: &retry::RetryVerdict) -> Result<u8> {
    let text =
        serde_json::to_string(verdict).map_err(|e| Error::internal("write the verdict", e))?;
    println!("{text}");
    crate::context::json_written();
    if !ctx.quiet() {
        let reading = if verdict.retry_allowed {
            "another attempt is allowed".to_string()
        } else if verdict.attempts > 0 {
            "no further attempt: start a new episode (`goal attempt episode`) with a different approach".to_string()
        } else {
            "no further attempt".to_string()
        };
        eprintln!("goal: {reading}");
    }
    Ok(if verdict.retry_allowed { 0 } else { 1 })
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    if let Command::Judge { stdin: true } = command {
        return judge_stdin(ctx);
    }
    let ws = Workspace::open(ctx)?;
    // The goal must be there before any argument is judged.
    let state = attempt::state(&ws)?;
    match command {
        Command::Add {
            outcome,
            strategy_id,
        } => add(ctx, &ws, &outcome, strategy_id)?,
        Command::Policy { values } => policy(ctx, &ws, &values)?,
        Command::Judge { .. } => {
            return print_verdict(ctx, &retry::judge(&state.attempts, &state.policy));
        }
        Command::Episode => {
            attempt::change(&ws, Change::Episode)?;
            ctx.say("new episode: attempts cleared, policy kept");
        }
        Command::Clear { yes } => clear(ctx, &ws, yes)?,
        Command::Status => status(ctx, &state)?,
    }
    Ok(0)
}

/// `judge --stdin`: the verdict on the attempts and policy read from stdin, no state touched.
fn judge_stdin(ctx: &Ctx) -> Result<u8> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(Error::io("cannot read", "stdin"))?;
    let (attempts, policy) = retry::parse_judge_input(&input).map_err(invalid)?;
    print_verdict(ctx, &retry::judge(&attempts, &policy))
}

/// `add`: the outcome and strategy id judged, then the attempt recorded.
fn add(ctx: &Ctx, ws: &Workspace, outcome: &str, strategy_id: Option<String>) -> Result<()> {
    let outcome = AttemptOutcome::parse(outcome).ok_or_else(|| {
        invalid(format!(
            "outcome `{outcome}` is not one of success, failure, no_progress, unknown"
        ))
    })?;
    if strategy_id.as_deref().is_some_and(|s| s.trim().is_empty()) {
        return Err(invalid("the strategy id is blank"));
    }
    let state = attempt::change(
        ws,
        Change::Add(Attempt {
            outcome,
            strategy_id,
        }),
    )?;
    if ctx.json {
        ctx.emit_json(&json!({"attempts": state.attempts.len()}))?;
    } else {
        ctx.say(format!("attempt {} recorded", state.attempts.len()));
    }
    Ok(())
}

/// The policy the arguments of `policy` ask for: none to only show it, or the one to store.
fn new_policy(values: &[String]) -> Result<Option<Policy>> {
    Ok(
        match values.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            [] => None,
            ["clear"] => Some(Policy::default()),
            [max] => Some(Policy {
                max_attempts: Some(limit(max)?),
                max_strategy_attempts: None,
            }),
            [max, strategy] => Some(Policy {
                max_attempts: Some(limit(max)?),
                max_strategy_attempts: Some(limit(strategy)?),
            }),
            _ => {
                return Err(invalid(
                    "usage: goal attempt policy [MAX [MAX_STRATEGY] | clear]",
                ));
            }
        },
    )
}

/// `policy`: the policy replaced or cleared when asked, then shown.
fn policy(ctx: &Ctx, ws: &Workspace, values: &[String]) -> Result<()> {
    let new = new_policy(values)?;
    let state = attempt::change(ws, Change::Policy(new))?;
    if ctx.json {
        ctx.emit_json(&state.policy)?;
    } else {
        say_policy(ctx, &state.policy);
    }
    Ok(())
}

/// The policy's line: each limit, or `none`.
fn say_policy(ctx: &Ctx, policy: &Policy) {
    let show = |v: Option<u64>| v.map_or("none".to_string(), |n| n.to_string());
    ctx.say(format!(
        "policy: maxAttempts {}, maxStrategyAttempts {}",
        show(policy.max_attempts),
        show(policy.max_strategy_attempts)
    ));
}

/// `clear`: refused without --yes, else attempts and policy emptied.
fn clear(ctx: &Ctx, ws: &Workspace, yes: bool) -> Result<()> {
    if !yes {
        return Err(Error::refused(
            "this would clear every attempt and the policy; nothing was changed",
            "goal attempt clear --yes",
        ));
    }
    attempt::change(ws, Change::Clear)?;
    ctx.say("retry state cleared: no attempts, no policy");
    Ok(())
}

/// `status`: the raw state, as JSON or as the episode's attempts and the policy.
fn status(ctx: &Ctx, state: &retry::RetryState) -> Result<()> {
    if ctx.json {
        return ctx.emit_json(state);
    }
    ctx.say(format!("episode: {} attempt(s)", state.attempts.len()));
    for (i, a) in state.attempts.iter().enumerate() {
        let outcome = serde_json::to_value(a.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let strategy = a
            .strategy_id
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        ctx.say(format!("  {}. {outcome}{strategy}", i + 1));
    }
    say_policy(ctx, &state.policy);
    Ok(())
}
