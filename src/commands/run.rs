//! `goal run`: drive an agent CLI turn after turn until the goal is proven done, blocked, or out
//! of budget. The loop's rules live in `runner::machine`; this file is its edge: the process,
//! the clock, git and the terminal.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::runner::agent::{self, INTERRUPTS, Turn};
use crate::runner::display::Display;
use crate::runner::machine::{
    Action, Event, GoalState, Limits, Machine, Outcome, TurnEnd, WaitKind, human_ms,
};
use crate::runner::presets::{self, Patterns, PromptPlace};
use crate::runner::prompt::{Extra, turn_prompt};
use crate::workspace::Workspace;

/// Drive an agent CLI, turn after turn, until the goal is proven done (by `goal done`'s gate,
/// never by what the agent says), blocked, or out of budget.
///
/// With a goal text it first starts the goal (as `goal init`); without, it continues the active
/// goal. Each turn the agent gets the goal, the criteria still to prove with their re-run lines,
/// and what the loop knows (a stagnant verdict, `goal done`'s last refusal). A turn that made no
/// iteration commit is recorded as one. A failed turn (non-zero exit, a timeout, an API error) is
/// retried in the same iteration after min(30·2^(n-1), 300) s, 10 times; the 11th blocks the goal.
/// A usage limit with a reset time is waited out. An auth or configuration failure stops at once.
///
/// Exit codes: 0 complete; 1 blocked or escalated (a person is needed); 2 bad input or a hard
/// agent failure; 3 a budget ran out; 130 interrupted (one Ctrl-C ends after the current turn is
/// recorded, a second stops the agent at once).
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
    /// The agent CLI, run in its headless mode (claude, codex, gemini, pi, opencode, aider, cursor).
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(["claude", "codex", "gemini", "pi", "opencode", "aider", "cursor"]), conflicts_with = "command")]
    pub agent: Option<String>,
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
    /// Stop (exit 3) after this much wall time, waits included: 90, 90s, 5m, 2h.
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub max_time: Option<Duration>,
    /// Kill the agent (its whole process group) when it prints nothing for this long; the turn is
    /// retried.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, default_value = "15m")]
    pub idle_timeout: Duration,
    /// Kill the agent when one turn takes longer than this; the turn is retried.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, default_value = "60m")]
    pub turn_timeout: Duration,
    /// Run on a detached HEAD anyway (the run's commits are then on no branch).
    #[arg(long)]
    pub detached_ok: bool,
    /// Any agent command instead of a preset: the prompt goes on stdin, in GOAL_PROMPT (and a file
    /// named by GOAL_PROMPT_FILE), and in place of an argument that is exactly `{prompt}`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// The largest prompt passed in GOAL_PROMPT (Linux refuses one variable over 128 KiB).
const MAX_ENV_PROMPT: usize = 100 * 1024;

/// `90`, `90s`, `5m`, `2h` (and `300ms`, `0.5s` for tests).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: use 90, 90s, 5m or 2h"))?;
    let seconds = match unit {
        "ms" => n / 1000.0,
        "s" | "sec" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use s, m or h)")),
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "`{text}` is not a positive duration: use 90, 90s, 5m or 2h"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// GOAL_TIME_SCALE: a factor on every wait (0 makes tests instant).
fn time_scale() -> f64 {
    std::env::var("GOAL_TIME_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .unwrap_or(1.0)
}

/// The run's clock: wall time, where a scaled wait counts its nominal length (so budgets and
/// usage-limit resets behave the same under GOAL_TIME_SCALE).
struct Clock {
    epoch_ms: u64,
    started: Instant,
    skew_ms: u64,
}

impl Clock {
    fn new() -> Clock {
        let epoch_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Clock {
            epoch_ms,
            started: Instant::now(),
            skew_ms: 0,
        }
    }

    fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.epoch_ms
            .saturating_add(elapsed)
            .saturating_add(self.skew_ms)
    }
}

fn quiet(ctx: &Ctx) -> Ctx {
    Ctx {
        cwd: ctx.cwd.clone(),
        file: ctx.file.clone(),
        json: false,
        quiet: true,
        color: false,
    }
}

/// The goal's state, as the loop needs it.
fn goal_state(ws: &Workspace) -> Result<(GoalState, String)> {
    let Some(goal) = ws.read_goal()? else {
        // Gone: completed by `goal done` (its last commit says so) or abandoned.
        let complete = match ws.repo.head_id()? {
            Some(head) => ws
                .repo
                .commit_info(head)?
                .trailer("Goal-Status")
                .is_some_and(|s| s.trim() == "complete"),
            None => false,
        };
        let state = if complete {
            GoalState::Complete
        } else {
            GoalState::Gone
        };
        return Ok((state, "no goal".into()));
    };
    let proof = ws.proof(&goal)?;
    let summary = format!(
        "iteration {} · proven {}/{}",
        goal.iteration,
        proof.proven,
        goal.criteria.len()
    );
    let state = match goal.status {
        Status::Blocked => GoalState::Blocked,
        Status::Complete => GoalState::InProgress {
            all_proven: true,
            stagnant: false,
        },
        Status::InProgress => GoalState::InProgress {
            all_proven: !goal.criteria.is_empty() && proof.complete(),
            stagnant: crate::history::stagnation(&ws.repo, &ws.goal_dir, &goal, &ws.config)?
                .signals
                .stagnant,
        },
    };
    Ok((state, summary))
}

/// `20260101T120000Z-3f2a`: when the run started and which process it was.
fn run_id() -> String {
    format!(
        "{}-{:04x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id() & 0xffff
    )
}

/// Start the goal of `goal run "<goal>"`, or check that it is the active one.
fn start_goal(ctx: &Ctx, ws: &Workspace, args: &Args) -> Result<()> {
    let Some(text) = args.goal.as_deref() else {
        if ws.read_goal()?.is_none() {
            return Err(Error::refused(
                format!("no active goal ({} does not exist)", ws.goal_rel.display()),
                "start one with `goal run \"<goal>\" -c \"<criterion> (verify: `<test command>`)\" --agent <name>`",
            ));
        }
        return Ok(());
    };
    if let Some(active) = ws.read_goal()? {
        if active.goal == crate::goal_file::one_line(text) {
            let texts = active.criteria_texts();
            let new: Vec<&String> = args
                .criteria
                .iter()
                .filter(|c| !texts.contains(&crate::goal_file::one_line(c)))
                .collect();
            if !new.is_empty() {
                return Err(Error::usage(
                    format!(
                        "the goal \"{}\" is already active, and -c does not add criteria to it ({} not among them)",
                        active.goal,
                        new.len()
                    ),
                    "add them with `goal criteria add \"<criterion>\" --verify \"<test command>\"`, then `goal run` (no goal text)",
                ));
            }
            return Ok(());
        }
        return Err(Error::refused(
            format!("another goal is active: \"{}\"", active.goal),
            "continue it with `goal run` (no goal text), or replace it first with `goal init --replace \"<goal>\"`",
        ));
    }
    super::init::run(
        &quiet(ctx),
        super::init::Args {
            goal: Some(text.to_string()),
            criteria: args.criteria.clone(),
            criteria_file: None,
            phases: Vec::new(),
            replace: false,
            abandon_current: false,
            commit: super::CommitFlags::default(),
        },
    )?;
    Ok(())
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    // An unattended run would hang its commits off nothing: ask for a branch first.
    if ws.repo.head_detached() && !args.detached_ok {
        return Err(Error::usage(
            "HEAD is detached: the run's commits would be on no branch",
            "create a branch first with `git switch -c <name>`, or run anyway with `goal run --detached-ok`",
        ));
    }
    let (argv, place, patterns, agent_name) = match (&args.agent, args.command.is_empty()) {
        (Some(name), true) => {
            let Some(preset) = presets::preset(name) else {
                return Err(Error::usage(
                    format!("no agent preset `{name}`"),
                    format!("use one of {}", presets::names().join(", ")),
                ));
            };
            let mut argv: Vec<String> = preset.argv.iter().map(|s| s.to_string()).collect();
            argv.extend(args.agent_args.iter().cloned());
            (
                argv,
                Some(preset.prompt),
                Patterns::of(preset),
                name.clone(),
            )
        }
        (None, false) => (
            args.command.clone(),
            None,
            Patterns::all(),
            args.command[0].clone(),
        ),
        _ => {
            return Err(Error::usage(
                "no agent: give a preset or a command",
                format!(
                    "`goal run --agent claude` (presets: {}), or `goal run -- <command> {{prompt}}`",
                    presets::names().join(", ")
                ),
            ));
        }
    };
    start_goal(ctx, &ws, &args)?;
    ws.repo.ensure_idle()?;

    let run_id = run_id();
    let run_dir = ws.repo.git_dir().join("goal").join("runs").join(&run_id);
    std::fs::create_dir_all(&run_dir)
        .map_err(Error::io("cannot create the run folder", run_dir.clone()))?;
    agent::count_interrupts();
    let display = Display::new(ctx.json, ctx.quiet);
    let limits = Limits {
        backoff: crate::retry::Backoff {
            initial: ws.config.backoff_initial,
            factor: ws.config.backoff_factor,
            max: ws.config.backoff_max,
            max_retries: ws.config.max_retries,
        },
        max_iterations: args.max_iterations,
        max_time_ms: args.max_time.map(ms),
        turn_timeout_ms: Some(ms(args.turn_timeout)),
        idle_timeout_ms: Some(ms(args.idle_timeout)),
    };
    let mut machine = Machine::new(limits, patterns);
    let mut clock = Clock::new();
    let mut seen_interrupts = INTERRUPTS.load(Ordering::SeqCst);
    let scale = time_scale();
    let (state, summary) = goal_state(&ws)?;
    display.event(
        "start",
        json!({"run": run_id, "agent": agent_name, "log_dir": run_dir.display().to_string()}),
        &format!(
            "run {run_id} with {agent_name} ({summary}); turn logs in {}",
            run_dir.display()
        ),
    );
    let mut pending = machine.handle(Event::Start {
        now_ms: clock.now_ms(),
        state,
        retries: ws.retry_state().failures(),
    });
    let mut summary = summary;

    while !pending.is_empty() {
        let action = pending.remove(0);
        let next: Option<Event> = match action {
            Action::StartTurn {
                turn,
                iteration_attempt,
                timeout_ms,
            } => {
                let goal = ws.goal()?;
                let iteration_before = goal.iteration;
                let proof = ws.proof(&goal)?;
                let prompt = turn_prompt(
                    &goal,
                    &proof,
                    &Extra {
                        stagnant: machine.stagnant,
                        refusal: machine.refusal.as_deref(),
                        last_failure: machine.last_failure.as_deref(),
                        language: ws.config.prompt_language(&goal.goal),
                    },
                );
                let argv: Vec<String> = argv
                    .iter()
                    .map(|a| {
                        if a == "{prompt}" {
                            prompt.clone()
                        } else {
                            a.clone()
                        }
                    })
                    .collect();
                let log = run_dir.join(format!("turn-{turn}.log"));
                let iteration = goal.iteration + 1;
                display.event(
                    "turn_start",
                    json!({"turn": turn, "iteration": iteration, "attempt": iteration_attempt, "log": log.display().to_string()}),
                    &format!("turn {turn} (iteration {iteration}, try {iteration_attempt}) started"),
                );
                display.status(&format!("turn {turn} · {summary} · agent working"));
                // The prompt is also a file beside the turn's log; the environment holds it only
                // while it fits (the kernel refuses a variable over 128 KiB).
                let prompt_file = run_dir.join(format!("turn-{turn}.prompt"));
                let _ = std::fs::write(&prompt_file, &prompt);
                let mut env = vec![
                    ("GOAL_RUN".to_string(), "1".to_string()),
                    ("GOAL_ITERATION".to_string(), iteration.to_string()),
                    ("GOAL_RUN_ID".to_string(), run_id.clone()),
                    (
                        "GOAL_PROMPT_FILE".to_string(),
                        prompt_file.display().to_string(),
                    ),
                ];
                if prompt.len() < MAX_ENV_PROMPT {
                    env.push(("GOAL_PROMPT".to_string(), prompt.clone()));
                }
                let turn_timeout = timeout_ms.map(Duration::from_millis);
                let spec = Turn {
                    argv: &argv,
                    // A preset that takes the prompt as an argument gets an empty stdin: some
                    // (gemini, pi) would read it as more input.
                    stdin: (place != Some(PromptPlace::Arg)).then_some(prompt.as_str()),
                    cwd: ws.root(),
                    env,
                    log: log.clone(),
                    idle_timeout: Some(args.idle_timeout),
                    turn_timeout,
                };
                let mut follow = Vec::new();
                let ended = agent::run_turn(&spec, || {
                    let now = INTERRUPTS.load(Ordering::SeqCst);
                    let mut kill = false;
                    while seen_interrupts < now {
                        seen_interrupts += 1;
                        let actions = machine.handle(Event::Interrupt {
                            now_ms: clock.now_ms(),
                        });
                        if actions.contains(&Action::KillAgent) {
                            kill = true;
                        } else {
                            display.event(
                                "interrupt",
                                json!({"turn": turn}),
                                "Ctrl-C: finishing this turn, then stopping (Ctrl-C again stops the agent now)",
                            );
                        }
                        follow.extend(actions.into_iter().filter(|a| *a != Action::KillAgent));
                    }
                    display.status(&format!("turn {turn} · {summary} · agent working"));
                    kill
                });
                let committed = ws
                    .read_goal()
                    .ok()
                    .flatten()
                    .is_none_or(|g| g.iteration > iteration_before);
                let (code, verdict) = match &ended.end {
                    TurnEnd::Exited(c) => (Some(*c), format!("exited {c}")),
                    TurnEnd::IdleTimeout => (None, "idle timeout: killed".to_string()),
                    // Which budget ended it: the turn's own timeout, or the run's --max-time.
                    TurnEnd::TurnTimeout if machine.max_time_passed(clock.now_ms()) => {
                        (None, "--max-time ran out: killed".to_string())
                    }
                    TurnEnd::TurnTimeout => (None, "turn timeout: killed".to_string()),
                    TurnEnd::Killed => (None, "killed".to_string()),
                    TurnEnd::NotStarted(why) => (None, why.clone()),
                };
                display.event(
                    "turn_end",
                    json!({"turn": turn, "exit_code": code, "end": verdict, "committed": committed, "log": log.display().to_string()}),
                    &format!("turn {turn} ended: {verdict}"),
                );
                display.status(&format!("turn {turn} · {summary} · turn ended: {verdict}"));
                pending.extend(follow);
                Some(Event::TurnEnded {
                    now_ms: clock.now_ms(),
                    end: ended.end,
                    output: ended.output,
                    committed,
                })
            }
            Action::Record { turn, iterate } => {
                let mut recorded = None;
                let mut new_files: Vec<String> = Vec::new();
                if let Some(message) = iterate
                    && ws
                        .read_goal()?
                        .is_some_and(|g| g.status == Status::InProgress)
                {
                    let before = ws.repo.head_id()?;
                    super::iterate::run(
                        &quiet(ctx),
                        super::iterate::Args {
                            messages: vec![message.clone()],
                            goal_only: false,
                            commit: super::CommitFlags::default(),
                            run_id: Some(run_id.clone()),
                        },
                    )?;
                    recorded = Some(message);
                    // The files this iteration brought into git, said where people look.
                    for info in ws.repo.first_parent_walk()? {
                        let info = info?;
                        if Some(info.id) == before {
                            break;
                        }
                        new_files.extend(
                            ws.repo
                                .added_paths(info.id, &ws.goal_dir)
                                .unwrap_or_default(),
                        );
                    }
                }
                let (state, now_summary) = goal_state(&ws)?;
                summary = now_summary;
                // The status line says what the event line below says, not the last turn's.
                display.status(&format!("turn {turn} · {summary} · iteration recorded"));
                let (iteration, stagnant) = match ws.read_goal()? {
                    Some(g) => (
                        Some(g.iteration),
                        matches!(state, GoalState::InProgress { stagnant: true, .. }),
                    ),
                    None => (None, false),
                };
                display.event(
                    "iterate",
                    json!({"turn": turn, "iteration": iteration, "recorded_by": if recorded.is_some() { "goal run" } else { "agent" }, "message": recorded, "state": summary, "stagnant": stagnant, "new_files": new_files}),
                    &format!(
                        "iteration recorded by {}: {summary}{}{}",
                        if recorded.is_some() {
                            "goal run"
                        } else {
                            "the agent"
                        },
                        if new_files.is_empty() {
                            String::new()
                        } else {
                            format!(
                                " · new files committed: {}",
                                super::verify::name_paths(&new_files)
                            )
                        },
                        if stagnant {
                            " · stagnant: the next prompt asks for a new strategy"
                        } else {
                            ""
                        }
                    ),
                );
                Some(Event::Recorded {
                    now_ms: clock.now_ms(),
                    state,
                })
            }
            Action::RecordRetry {
                retry,
                max,
                delay_s,
                reason,
            } => {
                record_failure(ctx, &reason)?;
                display.event(
                    "retry",
                    json!({"retry": retry, "max": max, "delay_s": delay_s, "reason": reason}),
                    &format!("retry {retry}/{max} in {delay_s}s — {reason}"),
                );
                None
            }
            Action::BlockRetries { reason } => {
                record_failure(ctx, &reason)?;
                None
            }
            Action::Wait {
                ms: wait_ms,
                delay_s,
                kind,
                reason,
            } => {
                if kind == WaitKind::UsageLimit {
                    display.event(
                        "wait",
                        json!({"delay_s": delay_s, "kind": "usage_limit", "reason": reason}),
                        &format!(
                            "usage limit: waiting {} for its reset — {reason}",
                            human_ms(delay_s * 1000)
                        ),
                    );
                }
                let real = Duration::from_secs_f64(wait_ms as f64 / 1000.0 * scale);
                let started = Instant::now();
                let mut stop = Vec::new();
                while started.elapsed() < real {
                    std::thread::sleep(
                        Duration::from_millis(50).min(real - started.elapsed().min(real)),
                    );
                    let left = real.saturating_sub(started.elapsed());
                    let nominal_left = if scale > 0.0 {
                        left.as_secs_f64() / scale
                    } else {
                        0.0
                    };
                    display.status(&format!(
                        "{summary} · {} in {:.0}s",
                        if kind == WaitKind::UsageLimit {
                            "usage limit resets"
                        } else {
                            "retry"
                        },
                        nominal_left.ceil()
                    ));
                    let now = INTERRUPTS.load(Ordering::SeqCst);
                    if seen_interrupts < now {
                        seen_interrupts = now;
                        stop = machine.handle(Event::Interrupt {
                            now_ms: clock.now_ms(),
                        });
                        break;
                    }
                }
                if !stop.is_empty() {
                    pending.extend(stop);
                    None
                } else {
                    let waited = u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
                    clock.skew_ms += wait_ms.saturating_sub(waited);
                    Some(Event::TimerFired {
                        now_ms: clock.now_ms(),
                    })
                }
            }
            Action::CallDone => {
                let done_ctx = if ctx.json { quiet(ctx) } else { clone_ctx(ctx) };
                let answer = display.suspend(|| {
                    super::done::run(
                        &done_ctx,
                        super::done::Args {
                            deslop: Vec::new(),
                            commit: super::CommitFlags::default(),
                            report: false,
                            // The agent never confirms its own weakened tests.
                            confirm: false,
                        },
                    )
                });
                let refusal = match answer {
                    Ok(_) => None,
                    Err(e) if e.exit_code() == 1 => Some(match e.hint() {
                        Some(hint) => format!("{e}\nhint: {hint}"),
                        None => e.to_string(),
                    }),
                    Err(e) => return Err(e),
                };
                if let Some(r) = &refusal {
                    display.event(
                        "done_refused",
                        json!({"refusal": r}),
                        &format!(
                            "`goal done` refused: {}",
                            r.lines().next().unwrap_or_default()
                        ),
                    );
                }
                Some(Event::DoneAnswered {
                    now_ms: clock.now_ms(),
                    refusal,
                })
            }
            Action::KillAgent => None,
            Action::Stop { outcome, reason } => {
                display.finish();
                let event = match outcome {
                    Outcome::Complete => "done",
                    Outcome::Blocked => "blocked",
                    Outcome::Budget => "budget",
                    Outcome::Interrupted => "interrupted",
                    Outcome::HardFailure => "error",
                };
                display.event(
                    event,
                    json!({"code": outcome.code(), "reason": reason, "iterations": machine.iterations(), "run": run_id}),
                    &format!(
                        "{reason} (exit {}; {} iteration(s) this run; `goal log` shows run {run_id})",
                        outcome.code(),
                        machine.iterations()
                    ),
                );
                if outcome == Outcome::HardFailure && !ctx.json {
                    eprintln!("goal: error: {reason}");
                    eprintln!(
                        "hint: fix the agent's setup (install it, log in, check its flags), then `goal run` again to continue"
                    );
                }
                return Ok(outcome.code());
            }
        };
        if let Some(event) = next {
            // A Ctrl-C that came while recording or while `goal done` ran counts before the
            // next step, so no new turn starts after it.
            let now = INTERRUPTS.load(Ordering::SeqCst);
            while seen_interrupts < now {
                seen_interrupts += 1;
                pending.extend(machine.handle(Event::Interrupt {
                    now_ms: clock.now_ms(),
                }));
            }
            pending.extend(machine.handle(event));
        }
    }
    Ok(2)
}

fn clone_ctx(ctx: &Ctx) -> Ctx {
    Ctx {
        cwd: ctx.cwd.clone(),
        file: ctx.file.clone(),
        json: ctx.json,
        quiet: ctx.quiet,
        color: ctx.color,
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Record one failed attempt as `goal retry` does (retry.json; after the last one, the goal is
/// blocked in an escalation commit).
fn record_failure(ctx: &Ctx, reason: &str) -> Result<()> {
    let answer = super::retry::run(
        &quiet(ctx),
        super::retry::Args {
            sleep: false,
            strategy: None,
            reason: Some(reason.to_string()),
            commit: super::CommitFlags::default(),
        },
    );
    match answer {
        Ok(_) => Ok(()),
        // The goal is no longer in progress (the agent blocked it): nothing to count.
        Err(e) if e.exit_code() == 1 => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases = [
            ("90", Some(90_000)),
            ("90s", Some(90_000)),
            ("5m", Some(300_000)),
            ("2h", Some(7_200_000)),
            ("300ms", Some(300)),
            ("0.5s", Some(500)),
            ("5x", None),
            ("", None),
            ("-1", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).ok().map(ms), want, "{text}");
        }
    }
}
