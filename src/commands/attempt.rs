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
    if !ctx.quiet {
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
        let mut input = String::new();
        std::io::stdin()
            .read_to_string(&mut input)
            .map_err(Error::io("cannot read", "stdin"))?;
        let (attempts, policy) = retry::parse_judge_input(&input).map_err(invalid)?;
        return print_verdict(ctx, &retry::judge(&attempts, &policy));
    }
    let ws = Workspace::open(ctx)?;
    // The goal must be there before any argument is judged.
    let state = attempt::state(&ws)?;
    match command {
        Command::Add {
            outcome,
            strategy_id,
        } => {
            let outcome = AttemptOutcome::parse(&outcome).ok_or_else(|| {
                invalid(format!(
                    "outcome `{outcome}` is not one of success, failure, no_progress, unknown"
                ))
            })?;
            if strategy_id.as_deref().is_some_and(|s| s.trim().is_empty()) {
                return Err(invalid("the strategy id is blank"));
            }
            let state = attempt::change(
                &ws,
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
        }
        Command::Policy { values } => {
            let new = match values.iter().map(String::as_str).collect::<Vec<_>>()[..] {
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
            };
            let state = attempt::change(&ws, Change::Policy(new))?;
            if ctx.json {
                ctx.emit_json(&state.policy)?;
            } else {
                let show = |v: Option<u64>| v.map_or("none".to_string(), |n| n.to_string());
                ctx.say(format!(
                    "policy: maxAttempts {}, maxStrategyAttempts {}",
                    show(state.policy.max_attempts),
                    show(state.policy.max_strategy_attempts)
                ));
            }
        }
        Command::Judge { .. } => {
            return print_verdict(ctx, &retry::judge(&state.attempts, &state.policy));
        }
        Command::Episode => {
            attempt::change(&ws, Change::Episode)?;
            ctx.say("new episode: attempts cleared, policy kept");
        }
        Command::Clear { yes } => {
            if !yes {
                return Err(Error::refused(
                    "this would clear every attempt and the policy; nothing was changed",
                    "goal attempt clear --yes",
                ));
            }
            attempt::change(&ws, Change::Clear)?;
            ctx.say("retry state cleared: no attempts, no policy");
        }
        Command::Status => {
            if ctx.json {
                ctx.emit_json(&state)?;
            } else {
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
                let show = |v: Option<u64>| v.map_or("none".to_string(), |n| n.to_string());
                ctx.say(format!(
                    "policy: maxAttempts {}, maxStrategyAttempts {}",
                    show(state.policy.max_attempts),
                    show(state.policy.max_strategy_attempts)
                ));
            }
        }
    }
    Ok(0)
}
