//! `goal run`: drive an agent CLI turn after turn until the goal is proven done, blocked, or out
//! of budget. The loop's rules live in `runner::machine`; this file is its edge: the process,
//! the clock, git and the terminal.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::ops;
use crate::runner::agent::{self, INTERRUPTS, Turn};
use crate::runner::clock::{self, Clock, ms, time_scale};
use crate::runner::display::Display;
use crate::runner::machine::{
    Budget, Event, GoalState, Limits, Machine, RunEnd, Step, TurnEnd, WaitKind, human_ms,
};
use crate::runner::presets::{self, Patterns, PromptPlace};
use crate::runner::prompt::{Extra, turn_prompt};
use crate::usage::Usage;
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
    #[arg(long, value_name = "NAME", action = clap::ArgAction::Append, value_parser = clap::builder::PossibleValuesParser::new(["claude", "codex", "gemini", "qwen", "pi", "opencode", "aider", "cursor"]), conflicts_with = "command")]
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
    #[arg(long, value_name = "N", value_parser = super::race::parse_racers)]
    pub race: Option<usize>,
    /// Keep every racer's worktree when the race ends (by default each is removed, unless it holds
    /// uncommitted work).
    #[arg(long, requires = "race")]
    pub keep_worktrees: bool,
    /// Any agent command instead of a preset: the prompt goes on stdin, in GOAL_PROMPT (and a file
    /// named by GOAL_PROMPT_FILE), and in place of an argument that is exactly `{prompt}`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// `--max-cost`: a positive number of US dollars (`5`, `0.50`, `$2`).
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
fn check_budgets(args: &Args) -> Result<()> {
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

/// The usage figures of events and the status line (each null when not reported).
fn usage_json(u: &Usage) -> serde_json::Value {
    json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cost_usd": u.cost_usd})
}

/// ` · $0.1234 · 3400 tokens`: the spend so far, as far as it was reported (empty when nothing was).
fn spend_text(u: &Usage) -> String {
    let mut text = String::new();
    if let Some(cost) = u.cost_usd {
        text.push_str(&format!(" · ${cost:.4}"));
    }
    if let Some(tokens) = u.tokens() {
        text.push_str(&format!(" · {tokens} tokens"));
    }
    text
}

/// One agent of the run: a preset, or the custom command.
struct AgentSpec {
    name: String,
    /// Its command line (`{prompt}` stands for the prompt).
    argv: Vec<String>,
    place: Option<PromptPlace>,
    /// Its failure texts (handed to the machine).
    patterns: Option<Patterns>,
    /// The preset's reader of a turn's usage (a custom command reports none).
    reader: Option<fn(&str) -> Usage>,
    verified: Option<&'static str>,
}

/// The largest prompt passed in GOAL_PROMPT (Linux refuses one variable over 128 KiB).
const MAX_ENV_PROMPT: usize = 100 * 1024;

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
fn start_goal(ws: &Workspace, args: &Args) -> Result<()> {
    if check_goal(ws, args.goal.as_deref(), &args.criteria)?.is_some() {
        ops::init::init(
            ws,
            ops::init::Options {
                goal: args.goal.clone(),
                criteria: args.criteria.clone(),
                phases: Vec::new(),
                abandon_current: false,
                on_active: &|_| ops::init::OnActive::Keep,
            },
        )?;
    }
    Ok(())
}

/// Whether `goal run` may go on with this goal text (None: the active goal) and criteria: Some
/// with the text when the goal must be started first, None when the active goal is the one to
/// continue; refused when there is none, or another one is active.
pub(crate) fn check_goal(
    ws: &Workspace,
    text: Option<&str>,
    criteria: &[String],
) -> Result<Option<String>> {
    let Some(text) = text else {
        if ws.read_goal()?.is_none() {
            return Err(Error::refused(
                format!("no active goal ({} does not exist)", ws.goal_rel.display()),
                "start one with `goal run \"<goal>\" -c \"<criterion> (verify: `<test command>`)\" --agent <name>`",
            ));
        }
        return Ok(None);
    };
    if let Some(active) = ws.read_goal()? {
        if active.goal == crate::goal_file::one_line(text) {
            let texts = active.criteria_texts();
            let new: Vec<&String> = criteria
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
            return Ok(None);
        }
        return Err(Error::refused(
            format!("another goal is active: \"{}\"", active.goal),
            "continue it with `goal run` (no goal text), or replace it first with `goal init --replace \"<goal>\"`",
        ));
    }
    Ok(Some(text.to_string()))
}

/// The refusal of a `goal run` given neither a preset nor a command.
pub(crate) fn no_agent() -> Error {
    Error::usage(
        "no agent: give a preset or a command",
        format!(
            "`goal run --agent claude` (presets: {}), or `goal run -- <command> {{prompt}}`",
            presets::names().join(", ")
        ),
    )
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    // A budget no listed agent can be held to is refused before anything is made (each racer
    // would refuse it too).
    check_budgets(&args)?;
    if let Some(racers) = args.race {
        return super::race::run(ctx, args, racers);
    }
    let ws = Workspace::open(ctx)?;
    // An unattended run would hang its commits off nothing: ask for a branch first.
    if ws.repo.head_detached() && !args.detached_ok {
        return Err(Error::usage(
            "HEAD is detached: the run's commits would be on no branch",
            "create a branch first with `git switch -c <name>`, or run anyway with `goal run --detached-ok`",
        ));
    }
    let mut agents: Vec<AgentSpec> = Vec::new();
    for (i, name) in args.agent.iter().enumerate() {
        if args.agent[..i].contains(name) {
            return Err(Error::usage(
                format!("`--agent {name}` is given twice: a run fails over to each agent once"),
                format!(
                    "list each agent once, in the order to try them (e.g. `--agent {name} --agent <another>`)"
                ),
            ));
        }
        let Some(preset) = presets::preset(name) else {
            return Err(Error::usage(
                format!("no agent preset `{name}`"),
                format!("use one of {}", presets::names().join(", ")),
            ));
        };
        let mut argv: Vec<String> = preset.argv.iter().map(|s| s.to_string()).collect();
        argv.extend(args.agent_args.iter().cloned());
        agents.push(AgentSpec {
            name: name.clone(),
            argv,
            place: Some(preset.prompt),
            patterns: Some(Patterns::of(preset)),
            reader: Some(preset.usage),
            verified: preset.verified,
        });
    }
    if !args.command.is_empty() {
        agents.push(AgentSpec {
            name: args.command[0].clone(),
            argv: args.command.clone(),
            place: None,
            patterns: Some(Patterns::all()),
            reader: None,
            verified: None,
        });
    }
    if agents.is_empty() {
        return Err(no_agent());
    }
    start_goal(&ws, &args)?;
    ws.repo.ensure_idle()?;
    for preset in args.agent.iter().filter_map(|n| presets::preset(n)) {
        let common = ws.repo.common_dir().to_path_buf();
        crate::runner::own_files::exclude(&common, preset.name, preset.own_files).map_err(
            Error::io("cannot write the repository's info/exclude", common),
        )?;
    }

    let run_id = run_id();
    let run_dir = ws.repo.git_dir().join("goal").join("runs").join(&run_id);
    std::fs::create_dir_all(&run_dir)
        .map_err(Error::io("cannot create the run folder", run_dir.clone()))?;
    // Held (an OS lock) until the run ends, so `goal fleet` sees this run.
    let marker = crate::fleet::RunMarker::hold(
        ws.repo.git_dir(),
        &agents[0].name,
        &run_id,
        &crate::context::now_rfc3339(),
    );
    agent::count_interrupts();
    let display = Display::new(ctx.json, ctx.quiet);
    let verified = agents[0].verified;
    // The presets never run against their real CLI.
    let unverified: Vec<&str> = args
        .agent
        .iter()
        .filter(|n| presets::preset(n).is_some_and(|p| p.verified.is_none()))
        .map(String::as_str)
        .collect();
    let limits = Limits {
        budget: Budget {
            max_cost_usd: args.max_cost,
            max_tokens: args.max_tokens,
        },
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
    let mut machine = Machine::with_agents(
        limits,
        agents
            .iter_mut()
            .filter_map(|a| a.patterns.take())
            .collect(),
    );
    let clock = Clock::new();
    let seen_interrupts = INTERRUPTS.load(Ordering::SeqCst);
    let scale = time_scale();
    let (state, summary) = goal_state(&ws)?;
    display.event(
        "start",
        json!({"run": run_id, "agent": agents[0].name, "agents": agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), "verified": verified.is_some() && unverified.is_empty(), "verified_version": verified, "unverified": unverified, "log_dir": run_dir.display().to_string()}),
        &format!(
            "run {run_id} with {}{} ({summary}); turn logs in {}",
            agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", then "),
            match unverified.as_slice() {
                [] => String::new(),
                [_] if agents.len() == 1 => " (unverified)".to_string(),
                names => format!(" ({} unverified)", names.join(", ")),
            },
            run_dir.display()
        ),
    );
    let pending = machine.handle(Event::Start {
        now_ms: clock.now_ms(),
        state,
        retries: ws.retry_state().failures(),
    });

    let mut edge = Edge {
        ctx,
        ws: &ws,
        args: &args,
        agents,
        marker,
        unrecorded: Usage::default(),
        run_id,
        run_dir,
        display,
        machine,
        clock,
        seen_interrupts,
        scale,
        summary,
        spend: String::new(),
        pending,
    };
    edge.drive()
}

/// `goal run`'s edge: the process, the clock, git and the terminal around the pure machine.
struct Edge<'a> {
    ctx: &'a Ctx,
    ws: &'a Workspace,
    args: &'a Args,
    /// The run's agents, in the order given (failover).
    agents: Vec<AgentSpec>,
    /// The run's marker for `goal fleet` (it names the agent of the moment).
    marker: Option<crate::fleet::RunMarker>,
    /// What the turns used since the last commit `goal run` made (it goes into the next one's
    /// `Goal-Usage`: failed tries and turns the agent recorded itself ride with it).
    unrecorded: Usage,
    run_id: String,
    run_dir: std::path::PathBuf,
    display: Display,
    machine: Machine,
    clock: Clock,
    /// Ctrl-Cs already handed to the machine.
    seen_interrupts: usize,
    scale: f64,
    /// The goal's state in a few words, for the status line.
    summary: String,
    /// What the run has spent so far, for the status line (` · $0.12 · 3400 tokens`, or empty).
    spend: String,
    /// The machine's actions still to carry out.
    pending: Vec<Step>,
}

impl Edge<'_> {
    /// Carry out the machine's actions, feeding it what happened, until it stops the run.
    fn drive(&mut self) -> Result<u8> {
        while !self.pending.is_empty() {
            let action = self.pending.remove(0);
            let next = match action {
                Step::StartTurn {
                    turn,
                    agent,
                    iteration_attempt,
                    timeout_ms,
                } => self.start_turn(turn, agent, iteration_attempt, timeout_ms)?,
                Step::Record { turn, iterate } => self.record(turn, iterate)?,
                Step::RecordRetry {
                    retry,
                    max,
                    delay_s,
                    reason,
                } => self.record_retry(retry, max, delay_s, reason)?,
                Step::BlockRetries { reason } => {
                    record_failure(self.ws, &reason)?;
                    None
                }
                Step::Wait {
                    ms: wait_ms,
                    delay_s,
                    kind,
                    reason,
                } => self.wait(wait_ms, delay_s, kind, reason)?,
                Step::CallDone => self.call_done()?,
                Step::KillAgent => None,
                Step::Switch { from, to, reason } => {
                    let (from, to) = (self.agents[from].name.clone(), self.agents[to].name.clone());
                    self.display.event(
                        "switch",
                        json!({"from": from, "to": to, "reason": reason}),
                        &format!("switching from {from} to {to} — {reason}"),
                    );
                    if let Some(marker) = self.marker.as_mut() {
                        let _ = marker.set_agent(&to);
                    }
                    None
                }
                Step::Stop { outcome, reason } => return self.stop(outcome, reason),
            };
            if let Some(event) = next {
                // A Ctrl-C that came while recording or while `goal done` ran counts before the
                // next step, so no new turn starts after it.
                let now = INTERRUPTS.load(Ordering::SeqCst);
                while self.seen_interrupts < now {
                    self.seen_interrupts += 1;
                    self.pending.extend(self.machine.handle(Event::Interrupt {
                        now_ms: self.clock.now_ms(),
                    }));
                }
                self.pending.extend(self.machine.handle(event));
            }
        }
        Ok(2)
    }
}

impl Edge<'_> {
    /// Run one turn of the agent: its prompt, its process, its end.
    fn start_turn(
        &mut self,
        turn: u64,
        agent: usize,
        iteration_attempt: u32,
        timeout_ms: Option<u64>,
    ) -> Result<Option<Event>> {
        let next: Option<Event> = {
            let name = self.agents[agent].name.clone();
            let place = self.agents[agent].place;
            let reader = self.agents[agent].reader;
            let goal = self.ws.goal()?;
            let iteration_before = goal.iteration;
            let proof = self.ws.proof(&goal)?;
            let prompt = turn_prompt(
                &goal,
                &proof,
                &Extra {
                    stagnant: self.machine.stagnant,
                    refusal: self.machine.refusal.as_deref(),
                    last_failure: self.machine.last_failure.as_deref(),
                    language: self.ws.config.prompt_language(&goal.goal),
                },
            );
            let argv: Vec<String> = self.agents[agent]
                .argv
                .iter()
                .map(|a| {
                    if a == "{prompt}" {
                        prompt.clone()
                    } else {
                        a.clone()
                    }
                })
                .collect();
            let log = self.run_dir.join(format!("turn-{turn}.log"));
            let iteration = goal.iteration + 1;
            self.display.event(
                "turn_start",
                json!({"turn": turn, "agent": name, "iteration": iteration, "attempt": iteration_attempt, "log": log.display().to_string()}),
                &format!("turn {turn} (iteration {iteration}, try {iteration_attempt}) started with {name}"),
            );
            self.display.status(&format!(
                "turn {turn} · {summary}{spend} · agent working",
                summary = self.summary,
                spend = self.spend
            ));
            // The prompt is also a file beside the turn's log; the environment holds it only
            // while it fits (the kernel refuses a variable over 128 KiB).
            let prompt_file = self.run_dir.join(format!("turn-{turn}.prompt"));
            let _ = std::fs::write(&prompt_file, &prompt);
            let mut env = vec![
                ("GOAL_RUN".to_string(), "1".to_string()),
                ("GOAL_ITERATION".to_string(), iteration.to_string()),
                ("GOAL_RUN_ID".to_string(), self.run_id.clone()),
                ("GOAL_RUN_AGENT".to_string(), name.clone()),
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
                cwd: self.ws.root(),
                env,
                log: log.clone(),
                idle_timeout: Some(self.args.idle_timeout),
                turn_timeout,
            };
            let mut follow = Vec::new();
            let ended = agent::run_turn(&spec, || {
                let now = INTERRUPTS.load(Ordering::SeqCst);
                let mut kill = false;
                while self.seen_interrupts < now {
                    self.seen_interrupts += 1;
                    let actions = self.machine.handle(Event::Interrupt {
                        now_ms: self.clock.now_ms(),
                    });
                    if actions.contains(&Step::KillAgent) {
                        kill = true;
                    } else {
                        self.display.event(
                            "interrupt",
                            json!({"turn": turn}),
                            "Ctrl-C: finishing this turn, then stopping (Ctrl-C again stops the agent now)",
                        );
                    }
                    follow.extend(actions.into_iter().filter(|a| *a != Step::KillAgent));
                }
                self.display.status(&format!(
                    "turn {turn} · {summary}{spend} · agent working",
                    summary = self.summary,
                    spend = self.spend
                ));
                kill
            });
            let committed = self
                .ws
                .read_goal()
                .ok()
                .flatten()
                .is_none_or(|g| g.iteration > iteration_before);
            let (code, verdict) = match &ended.end {
                TurnEnd::Exited(c) => (Some(*c), format!("exited {c}")),
                TurnEnd::IdleTimeout => (None, "idle timeout: killed".to_string()),
                // Which budget ended it: the turn's own timeout, or the run's --max-time.
                TurnEnd::TurnTimeout if self.machine.max_time_passed(self.clock.now_ms()) => {
                    (None, "--max-time ran out: killed".to_string())
                }
                TurnEnd::TurnTimeout => (None, "turn timeout: killed".to_string()),
                TurnEnd::Killed => (None, "killed".to_string()),
                TurnEnd::NotStarted(why) => (None, why.clone()),
            };
            let usage = reader.map(|r| r(&ended.output)).unwrap_or_default();
            self.display.event(
                "turn_end",
                json!({"turn": turn, "agent": name, "exit_code": code, "end": verdict, "committed": committed, "usage": usage_json(&usage), "log": log.display().to_string()}),
                &format!("turn {turn} ended: {verdict}"),
            );
            self.spend = spend_text(&self.machine.usage().plus(usage));
            self.unrecorded = self.unrecorded.plus(usage);
            self.display.status(&format!(
                "turn {turn} · {}{} · turn ended: {verdict}",
                self.summary, self.spend
            ));
            self.pending.extend(follow);
            Some(Event::TurnEnded {
                now_ms: self.clock.now_ms(),
                end: ended.end,
                output: ended.output,
                committed,
                usage,
            })
        };
        Ok(next)
    }

    /// Record the turn as an iteration (when the agent did not), and read the goal's state again.
    fn record(&mut self, turn: u64, iterate: Option<String>) -> Result<Option<Event>> {
        let next: Option<Event> = {
            let mut recorded = None;
            let mut new_files: Vec<String> = Vec::new();
            if let Some(message) = iterate
                && self
                    .ws
                    .read_goal()?
                    .is_some_and(|g| g.status == Status::InProgress)
            {
                let iterated = ops::iterate::iterate(
                    self.ws,
                    ops::iterate::Options {
                        messages: vec![message.clone()],
                        goal_only: false,
                        run_id: Some(self.run_id.clone()),
                        run_agent: Some(self.agents[self.machine.agent()].name.clone()),
                        usage: Some(std::mem::take(&mut self.unrecorded))
                            .filter(|u| *u != Usage::default()),
                        quiet: true,
                    },
                )?;
                recorded = Some(message);
                // The files this iteration brought into git, said where people look (an
                // escalation commit after it brings none).
                new_files = self
                    .ws
                    .repo
                    .added_paths(iterated.commit, &self.ws.goal_dir)
                    .unwrap_or_default();
            }
            let (state, now_summary) = goal_state(self.ws)?;
            self.summary = now_summary;
            // The status line says what the event line below says, not the last turn's.
            self.display.status(&format!(
                "turn {turn} · {}{} · iteration recorded",
                self.summary, self.spend
            ));
            let (iteration, stagnant) = match self.ws.read_goal()? {
                Some(g) => (
                    Some(g.iteration),
                    matches!(state, GoalState::InProgress { stagnant: true, .. }),
                ),
                None => (None, false),
            };
            self.display.event(
                "iterate",
                json!({"turn": turn, "iteration": iteration, "recorded_by": if recorded.is_some() { "goal run" } else { "agent" }, "message": recorded, "state": self.summary, "stagnant": stagnant, "new_files": new_files}),
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
                    }, summary = self.summary),
            );
            Some(Event::Recorded {
                now_ms: self.clock.now_ms(),
                state,
            })
        };
        Ok(next)
    }

    /// Count a failed turn in the retry guard and say when the next try comes.
    fn record_retry(
        &mut self,
        retry: u32,
        max: u32,
        delay_s: u64,
        reason: String,
    ) -> Result<Option<Event>> {
        let next: Option<Event> = {
            record_failure(self.ws, &reason)?;
            self.display.event(
                "retry",
                json!({"retry": retry, "max": max, "delay_s": delay_s, "reason": reason}),
                &format!("retry {retry}/{max} in {delay_s}s — {reason}"),
            );
            None
        };
        Ok(next)
    }

    /// Wait out a backoff or a usage limit (scaled by GOAL_TIME_SCALE), stopped by Ctrl-C.
    fn wait(
        &mut self,
        wait_ms: u64,
        delay_s: u64,
        kind: WaitKind,
        reason: String,
    ) -> Result<Option<Event>> {
        let next: Option<Event> = {
            if kind == WaitKind::UsageLimit {
                self.display.event(
                    "wait",
                    json!({"delay_s": delay_s, "kind": "usage_limit", "reason": reason}),
                    &format!(
                        "usage limit: waiting {} for its reset — {reason}",
                        human_ms(delay_s * 1000)
                    ),
                );
            }
            let real = Duration::from_secs_f64(wait_ms as f64 / 1000.0 * self.scale);
            let started = Instant::now();
            let mut stop = Vec::new();
            while started.elapsed() < real {
                std::thread::sleep(
                    Duration::from_millis(50).min(real - started.elapsed().min(real)),
                );
                let left = real.saturating_sub(started.elapsed());
                let nominal_left = if self.scale > 0.0 {
                    left.as_secs_f64() / self.scale
                } else {
                    0.0
                };
                self.display.status(&format!(
                    "{summary}{spend} · {} in {:.0}s",
                    if kind == WaitKind::UsageLimit {
                        "usage limit resets"
                    } else {
                        "retry"
                    },
                    nominal_left.ceil(),
                    summary = self.summary,
                    spend = self.spend
                ));
                let now = INTERRUPTS.load(Ordering::SeqCst);
                if self.seen_interrupts < now {
                    self.seen_interrupts = now;
                    stop = self.machine.handle(Event::Interrupt {
                        now_ms: self.clock.now_ms(),
                    });
                    break;
                }
            }
            if !stop.is_empty() {
                self.pending.extend(stop);
                None
            } else {
                let waited = u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
                self.clock.skew_ms += wait_ms.saturating_sub(waited);
                Some(Event::TimerFired {
                    now_ms: self.clock.now_ms(),
                })
            }
        };
        Ok(next)
    }

    /// Ask `goal done`: None when it completed the goal, else its refusal for the next prompt.
    fn call_done(&mut self) -> Result<Option<Event>> {
        let next: Option<Event> = {
            let answer: Result<()> = self.display.suspend(|| {
                let done = ops::done::done(
                    self.ws,
                    ops::done::Options {
                        deslop: Vec::new(),
                        quiet: self.ctx.json || self.ctx.quiet,
                        // The agent never confirms its own weakened tests.
                        confirm: false,
                        run: Some(self.run_id.clone()),
                        usage: Some(self.unrecorded).filter(|u| *u != Usage::default()),
                    },
                )?;
                self.unrecorded = Usage::default();
                super::done::render(self.ctx, self.ws, &done);
                Ok(())
            });
            // `goal done` answering no is for the agent to act on; a hook, signing, a lock
            // or I/O failing stops the run, the goal as it was.
            let refusal = match answer {
                Ok(()) => None,
                Err(e) if e.is_done_refusal() => Some(e.render_plain()),
                Err(e) => {
                    self.display.finish();
                    return Err(e);
                }
            };
            if let Some(r) = &refusal {
                self.display.event(
                    "done_refused",
                    json!({"refusal": r}),
                    &format!(
                        "`goal done` refused: {}",
                        r.lines().next().unwrap_or_default()
                    ),
                );
            }
            Some(Event::DoneAnswered {
                now_ms: self.clock.now_ms(),
                refusal,
            })
        };
        Ok(next)
    }

    /// The run's last word: the stop event, a hard failure's diagnostic, the exit code.
    fn stop(&mut self, outcome: RunEnd, reason: String) -> Result<u8> {
        self.display.finish();
        let event = match outcome {
            RunEnd::Complete => "done",
            RunEnd::Blocked => "blocked",
            RunEnd::Budget => "budget",
            RunEnd::Interrupted => "interrupted",
            RunEnd::HardFailure => "error",
        };
        self.display.event(
            event,
            json!({"code": outcome.code(), "reason": reason, "iterations": self.machine.iterations(), "run": self.run_id, "usage": usage_json(&self.machine.usage())}),
            &format!(
                "{reason} (exit {}; {} iteration(s) this run{}; `goal log` shows run {run_id})",
                outcome.code(),
                self.machine.iterations(),
                spend_text(&self.machine.usage()).replace(" · ", ", "),
                run_id = self.run_id),
        );
        if outcome == RunEnd::HardFailure && !self.ctx.json {
            eprint!(
                "{}",
                crate::error::diagnostic(
                    &reason,
                    Some(
                        "fix the agent's setup (install it, log in, check its flags), then `goal run` again to continue"
                    ),
                )
            );
        }
        Ok(outcome.code())
    }
}

/// Record one failed attempt as `goal retry` does (retry.json; after the last one, the goal is
/// blocked in an escalation commit).
fn record_failure(ws: &Workspace, reason: &str) -> Result<()> {
    let answer = ops::retry::record_failure(
        ws,
        ops::retry::Options {
            strategy: None,
            reason: Some(reason.to_string()),
            quiet: true,
        },
    );
    match answer {
        Ok(_) => Ok(()),
        // The goal is no longer in progress (the agent blocked it): nothing to count.
        Err(e) if e.is_not_in_progress() => Ok(()),
        Err(e) => Err(e),
    }
}
