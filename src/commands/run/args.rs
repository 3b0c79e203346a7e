//! `goal run`'s command line: its flags (the `--help` text) and the budgets they set.

use std::time::Duration;

use crate::config::Config;
use crate::error::{Error, Result};
use crate::runner::clock::{self, ms};
use crate::runner::machine::{Budget, Limits};
use crate::runner::presets;

/// Drive an agent CLI, turn after turn, until the goal is proven done (by `goal done`'s gate,
/// never by what the agent says), blocked, or out of budget.
///
/// With a goal text it first starts the goal (as `goal init`); without, it continues the active
/// goal. Each turn the agent gets the goal, the criteria still to prove with their re-run lines,
/// and what the loop knows (a stagnant verdict, `goal done`'s last refusal). A turn that made no
/// iteration commit is recorded as one. A failed turn (non-zero exit, a timeout, an API error) is
/// retried in the same iteration after min(30·2^(n-1), 300) s, 10 times; the 11th blocks the goal.
/// A usage limit with a reset time is waited out. An auth or configuration failure stops at once.
/// With several `--agent`s each turn goes to the first one available: a usage limit hands the next
/// turn to the next agent at once (the run waits only when all are limited), and an auth failure
/// or a missing binary takes that agent out (exit 2 when none is left).
///
/// Exit codes: 0 complete; 1 blocked or escalated (a person is needed); 2 bad input or a hard
/// agent failure; 3 a budget ran out; 130 interrupted (one Ctrl-C ends after the current turn is
/// recorded, a second stops the agent at once).
///
/// With `--race N`, N racers run side by side, each in its own new worktree and branch from the
/// current commit, assigned in turn to the `--agent`s given (or all to the `-- CMD`); the first
/// whose `goal done` succeeds wins, the others are stopped with their work committed on their
/// branches, and the winner's branch is left to merge.
///
/// With `--claim <remote>`, racers on different machines race through that remote: each works
/// on a new branch of its own (`goal/<slug>-<agent>-<run id>`), pushed after each iteration; the
/// first proven done claims the win with one atomic push of its branch and `refs/goal/won/<race
/// id>` (created only if absent); the others read the claim between turns (and every
/// GOAL_CLAIM_POLL seconds, 30, during one) and, once the claimed commit passes `goal audit`,
/// stop as by a second Ctrl-C, the turn cut short recorded, their work pushed (outcome `lost`,
/// exit 0). A remote out
/// of reach is retried with backoff until `--max-time` (without it, 8 tries), then the run stops
/// (outcome `unpushed`, exit 1).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The goal to start; without it, the active goal is continued.
    pub goal: Option<String>,
    /// An acceptance criterion of the new goal (repeatable).
    #[arg(
        short = 'c',
        long = "criterion",
        value_name = "CRITERION",
        requires = "goal"
    )]
    pub criteria: Vec<String>,
    /// The agent CLI, run in its headless mode (claude, codex, gemini, qwen, pi, opencode, aider, cursor;
    /// cursor is unverified: never run against its real CLI). Repeatable: without `--race`, a
    /// failover: each turn goes to the first listed agent not at its usage limit, and one whose
    /// auth fails, or whose CLI is missing, leaves the run (--agent-arg goes to each of them);
    /// with `--race`, the racers take the agents in turn.
    #[arg(long, value_name = "NAME", action = clap::ArgAction::Append, value_parser = clap::builder::PossibleValuesParser::new(crate::runner::presets::PRESETS.iter().map(|p| p.name)), conflicts_with = "command")]
    pub agent: Vec<String>,
    /// An argument appended to the preset's command line (repeatable): a model, a profile…
    #[arg(
        long = "agent-arg",
        value_name = "ARG",
        allow_hyphen_values = true,
        requires = "agent"
    )]
    pub agent_args: Vec<String>,
    /// Stop (exit 3) after this many iterations of this run (failed turns are retries, not counted).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_iterations: Option<u64>,
    /// Stop (exit 3) after the turn whose running cost, as the agent CLI reports it, reaches this
    /// many US dollars (only with a preset that reports its cost).
    #[arg(long, value_name = "USD", value_parser = parse_usd)]
    pub max_cost: Option<f64>,
    /// Stop (exit 3) after the turn whose running token count (input plus output, as the agent CLI
    /// reports it) reaches N (only with a preset that reports tokens).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// Stop (exit 3) after this much wall time, waits included: 90, 90s, 5m, 2h.
    #[arg(long, value_name = "DUR", value_parser = clock::parse_duration)]
    pub max_time: Option<Duration>,
    /// Kill the agent (its whole process group) when it prints nothing for this long; the turn is
    /// retried (an agent whose last line shows it asleep on an API's retry-after: a usage limit).
    #[arg(long, value_name = "DUR", value_parser = clock::parse_duration, default_value = "15m")]
    pub idle_timeout: Duration,
    /// Kill the agent when one turn takes longer than this; the turn is retried.
    #[arg(long, value_name = "DUR", value_parser = clock::parse_duration, default_value = "60m")]
    pub turn_timeout: Duration,
    /// Run on a detached HEAD anyway (the run's commits are then on no branch).
    #[arg(long)]
    pub detached_ok: bool,
    /// Race N agents (2 or more) on the goal, each in its own new worktree and branch; the first
    /// to prove it done wins, and its branch is left to merge.
    #[arg(long, value_name = "N", value_parser = crate::commands::race::parse_racers)]
    pub race: Option<usize>,
    /// Keep every racer's worktree when the race ends (by default each is removed, unless it holds
    /// uncommitted work).
    #[arg(long, requires = "race")]
    pub keep_worktrees: bool,
    /// Race through this git remote against racers on other machines (with or without --race):
    /// push a branch of its own after each iteration, claim the win with
    /// `refs/goal/won/<race id>`, stop when another racer's claim verifies.
    #[arg(long, value_name = "REMOTE")]
    pub claim: Option<String>,
    /// The race's id, the same for every racer (default: GOAL_RACE_ID, else `<start commit, 12
    /// hex>-<12 hex of a hash of the goal text and criteria>`).
    #[arg(long, value_name = "ID", requires = "claim")]
    pub race_id: Option<String>,
    /// Any agent command instead of a preset: the prompt goes on stdin, in GOAL_PROMPT (and a file
    /// named by GOAL_PROMPT_FILE), and in place of an argument that is exactly `{prompt}`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `--max-cost`: a positive number of US dollars (`5`, `0.50`, `$2`). A clap value parser: Err
/// is its message.
fn parse_usd(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim().trim_start_matches('$');
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not an amount of US dollars above 0 (e.g. 5 or 0.50)"
        )),
    }
}

/// Refuse a budget the agent cannot be held to: a custom command reports no usage, and a preset
/// whose CLI does not report cost (or tokens) cannot keep `--max-cost` (`--max-tokens`).
pub(super) fn check_budgets(args: &Args) -> Result<()> {
    let asked = [
        ("--max-cost", "cost", args.max_cost.is_some()),
        ("--max-tokens", "token counts", args.max_tokens.is_some()),
    ];
    for (flag, what, given) in asked {
        if !given {
            continue;
        }
        if args.agent.is_empty() {
            let name = args.command.first().map_or("the command", String::as_str);
            return Err(Error::usage(
                format!(
                    "{flag} cannot be kept with the custom command `{name}`: `goal run` cannot read its usage"
                ),
                format!(
                    "use a preset that reports {what} (e.g. `goal run --agent claude {flag} …`), or drop {flag}"
                ),
            ));
        }
        let silent = args.agent.iter().find(|name| {
            presets::preset(name).is_none_or(|p| {
                if flag == "--max-cost" {
                    !p.reports.cost
                } else {
                    !p.reports.tokens
                }
            })
        });
        if let Some(name) = silent {
            let reporting: Vec<&str> = presets::names()
                .into_iter()
                .filter(|n| {
                    presets::preset(n).is_some_and(|p| {
                        if flag == "--max-cost" {
                            p.reports.cost
                        } else {
                            p.reports.tokens
                        }
                    })
                })
                .collect();
            return Err(Error::usage(
                format!(
                    "{flag} cannot be kept with the agent `{name}`: its CLI does not report {what}"
                ),
                format!(
                    "drop {flag}, or use an agent that reports {what} ({})",
                    reporting.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The machine's limits: the budgets and timeouts given, the backoff the config sets.
pub(super) fn limits(args: &Args, config: &Config) -> Limits {
    Limits {
        budget: Budget {
            max_cost_usd: args.max_cost,
            max_tokens: args.max_tokens,
        },
        backoff: crate::retry::Backoff {
            initial: config.backoff_initial,
            factor: config.backoff_factor,
            max: config.backoff_max,
            max_retries: config.max_retries,
        },
        max_iterations: args.max_iterations,
        max_time_ms: args.max_time.map(ms),
        turn_timeout_ms: Some(ms(args.turn_timeout)),
        idle_timeout_ms: Some(ms(args.idle_timeout)),
    }
}
