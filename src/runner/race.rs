//! `goal run --race N`: N racers side by side, each a `goal run --json` child of this process in
//! its own new linked worktree and branch; the first whose `goal done` succeeds wins, the others
//! are stopped as by a second Ctrl-C and the turn each had under way is recorded as an iteration.
//! The plan (branch names, agents, the exit code) is pure; the rest is the edge: worktrees, the
//! child processes and their event streams, signals.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use serde_json::Value;

use super::agent::INTERRUPTS;
use super::presets;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::repo::worktree::{head_of, uncommitted};
use crate::repo::{DiffStat, Oid, Repo};
use crate::trailers::GoalTrailers;
use crate::usage::Usage;
use crate::workspace::Workspace;

/// One racer's place in the race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The preset's name, or the custom command's program.
    pub agent: String,
    /// Whether `agent` is a preset (the racer is given `--agent <it>`).
    pub preset: bool,
    pub branch: String,
}

/// The longest slug of a goal text in a branch name.
const SLUG_MAX: usize = 40;

/// `say-hello-world`: a goal text as part of a branch name (lowercase ASCII letters and digits,
/// words joined by `-`, at most 40 characters, cut between words). Pure.
pub fn slug(text: &str) -> String {
    let words = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let mut slug = String::new();
    for word in words {
        let sep = usize::from(!slug.is_empty());
        if slug.len() + sep + word.len() > SLUG_MAX {
            if slug.is_empty() {
                slug = word[..SLUG_MAX].to_string();
            }
            break;
        }
        if sep == 1 {
            slug.push('-');
        }
        slug.push_str(&word);
    }
    if slug.is_empty() {
        "goal".to_string()
    } else {
        slug
    }
}

/// The racers' seats: racer i takes `agents[i % len]` (or, given `command`, the custom command)
/// on branch `goal/<slug>-<agent>` (`goal/<slug>-<n>` for the custom command), `-<k>` added where
/// an agent repeats, and `-2`, `-3`… where `taken` says a name is in use already. Pure.
pub fn seats(
    slug: &str,
    racers: usize,
    agents: &[String],
    command: Option<&str>,
    taken: &dyn Fn(&str) -> bool,
) -> Vec<Seat> {
    let mut seats: Vec<Seat> = Vec::new();
    for i in 0..racers {
        let (agent, preset, base) = match command {
            Some(program) => (program.to_string(), false, format!("goal/{slug}-{}", i + 1)),
            None if agents.is_empty() => return Vec::new(),
            None => {
                let agent = agents[i % agents.len()].clone();
                let repeats = (0..racers)
                    .filter(|j| agents[j % agents.len()] == agent)
                    .count();
                let base = if repeats > 1 {
                    let k = (0..=i)
                        .filter(|j| agents[j % agents.len()] == agent)
                        .count();
                    format!("goal/{slug}-{agent}-{k}")
                } else {
                    format!("goal/{slug}-{agent}")
                };
                (agent, true, base)
            }
        };
        let mut branch = base.clone();
        let mut n = 2;
        while taken(&branch) || seats.iter().any(|s| s.branch == branch) {
            branch = format!("{base}-{n}");
            n += 1;
        }
        seats.push(Seat {
            agent,
            preset,
            branch,
        });
    }
    seats
}

/// Where a racer's worktree goes: `<git common dir>/goal/race/<branch without goal/>`, inside the
/// repository's own folder, out of every tool's way in the main worktree.
pub fn worktree_path(common_dir: &Path, branch: &str) -> PathBuf {
    common_dir
        .join("goal")
        .join("race")
        .join(branch.strip_prefix("goal/").unwrap_or(branch))
}

/// How a racer's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RacerOutcome {
    /// Its `goal done` succeeded (the first one to: the winner).
    Complete,
    /// Stopped because another racer won.
    Stopped,
    Interrupted,
    Blocked,
    Budget,
    /// A hard agent failure, or the run refused to start.
    Error,
}

impl RacerOutcome {
    /// The outcome a `goal run --json` stop event names. Pure.
    pub fn of_event(event: &str) -> Option<RacerOutcome> {
        Some(match event {
            "done" => RacerOutcome::Complete,
            "blocked" => RacerOutcome::Blocked,
            "budget" => RacerOutcome::Budget,
            "interrupted" => RacerOutcome::Interrupted,
            "error" => RacerOutcome::Error,
            _ => return None,
        })
    }

    /// The outcome of a run that ended without a stop event, by its exit code. Pure.
    pub fn of_code(code: i32) -> RacerOutcome {
        match code {
            0 => RacerOutcome::Complete,
            3 => RacerOutcome::Budget,
            c if c >= 128 => RacerOutcome::Interrupted,
            _ => RacerOutcome::Error,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RacerOutcome::Complete => "complete",
            RacerOutcome::Stopped => "stopped",
            RacerOutcome::Interrupted => "interrupted",
            RacerOutcome::Blocked => "blocked",
            RacerOutcome::Budget => "budget",
            RacerOutcome::Error => "error",
        }
    }
}

/// The race's exit code, as `goal run`'s: 0 when a racer won; else 130 when Ctrl-C stopped it;
/// else from the racers' own codes, the one that most needs a person first: 1 (blocked), 2 (a
/// hard failure), 3 (a budget ran out), then any other. Pure.
pub fn exit_code(won: bool, interrupted: bool, codes: &[i32]) -> u8 {
    if won {
        return 0;
    }
    if interrupted {
        return 130;
    }
    for wanted in [1, 2, 3] {
        if codes.contains(&wanted) {
            return wanted as u8;
        }
    }
    codes
        .iter()
        .find_map(|c| u8::try_from(*c).ok().filter(|c| *c != 0))
        .unwrap_or(2)
}

/// Lines changed on a racer's branch since the race started (the goal's own files left out).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Diff {
    pub files: usize,
    pub insertions: usize,
    pub deletions: usize,
}

impl From<DiffStat> for Diff {
    fn from(d: DiffStat) -> Diff {
        Diff {
            files: d.files_changed,
            insertions: d.insertions,
            deletions: d.deletions,
        }
    }
}

/// One racer, once the race is over.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RacerReport {
    pub agent: String,
    pub branch: String,
    pub worktree: String,
    /// Iterations recorded on its branch during the race (the cut-short turn's included).
    pub iterations: u64,
    /// Agent turns started (failed ones, retried, included).
    pub turns: u64,
    /// What its turns used, as the agent CLI reported it (absent fields: not reported).
    pub usage: Usage,
    pub proven: Option<usize>,
    pub total: Option<usize>,
    pub diff: Diff,
    pub winner: bool,
    pub outcome: RacerOutcome,
    /// Why its run ended, in its own words.
    pub reason: String,
    pub exit_code: Option<i32>,
    /// Its `goal run`'s id (`goal log` shows it).
    pub run: Option<String>,
    pub worktree_kept: bool,
    /// Why the worktree was not removed.
    pub kept_because: Option<String>,
}

/// The race, once it is over.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RaceReport {
    pub racers: Vec<RacerReport>,
    /// The winner's branch.
    pub winner: Option<String>,
    #[serde(skip)]
    pub interrupted: bool,
    #[serde(skip)]
    pub code: u8,
}

/// What a race needs to start.
pub struct Race<'a> {
    /// The main worktree's repository (its common dir holds the racers' worktrees).
    pub repo: &'a Repo,
    /// The goal file and its folder, relative to a worktree's root.
    pub goal_rel: &'a Path,
    pub goal_dir: &'a Path,
    /// `--file` was given: each racer gets its own worktree's path of it.
    pub file_given: bool,
    /// The commit every racer's branch starts from.
    pub start: Oid,
    pub seats: Vec<Seat>,
    /// `run` and its options for every racer (no `--agent`: each gets its own).
    pub run_args: Vec<OsString>,
    /// The goal text and `-- CMD ARGS…`, after the options.
    pub tail: Vec<OsString>,
    pub keep_worktrees: bool,
    /// A line of progress for people.
    pub say: &'a dyn Fn(&str),
    /// A line for stderr (what a racer's run said there).
    pub note: &'a dyn Fn(&str),
}

enum Msg {
    Line(usize, String),
    Stderr(usize, String),
    Closed(usize),
}

/// A racer while it runs.
struct Racer {
    seat: Seat,
    worktree: PathBuf,
    child: Option<Child>,
    pid: Option<Pid>,
    run: Option<String>,
    turns: u64,
    iterations: u64,
    /// The last turn started and not recorded as an iteration yet.
    open_turn: Option<u64>,
    usage: Usage,
    outcome: Option<RacerOutcome>,
    reason: String,
    last_stderr: String,
    exit_code: Option<i32>,
    exited: bool,
    /// When its process was seen to exit.
    exited_at: Option<Instant>,
    stdout_open: bool,
    /// Another racer won: this one was sent the second Ctrl-C.
    stopped: bool,
    /// Ctrl-Cs passed on to it.
    signals: usize,
    report: Option<RacerReport>,
}

/// Send one signal to a racer's `goal run` (it passes it on to its agent as Ctrl-C would).
fn signal(pid: Option<Pid>, signal: Signal) {
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process(pid, signal);
    }
}

/// The n-th Ctrl-C passed on: SIGINT and SIGTERM by turns, so that two in a row are never merged
/// into one by the kernel (`goal run` counts either as a Ctrl-C).
fn nth_interrupt(n: usize) -> Signal {
    if n % 2 == 1 {
        Signal::INT
    } else {
        Signal::TERM
    }
}

/// Undo the worktrees and branches made so far (nothing ran in them yet).
fn roll_back(repo: &Repo, made: &[(PathBuf, String)]) {
    for (path, branch) in made.iter().rev() {
        let _ = repo.remove_worktree(path, true);
        let _ = repo.delete_branch(branch);
    }
    remove_race_dir(repo.common_dir());
}

fn remove_race_dir(common_dir: &Path) {
    // Only when empty: a kept worktree stays where the summary says.
    let _ = std::fs::remove_dir(common_dir.join("goal").join("race"));
}

/// Run the race: make the worktrees, start the racers, follow them to the end, tidy up.
pub fn race(r: Race) -> Result<RaceReport> {
    super::agent::count_interrupts();
    let Some(exe) = crate::self_path::current_goal() else {
        return Err(Error::usage(
            "cannot find this goal binary to start the racers with",
            "run goal by its path, or reinstall it (`goal --version` should work)",
        ));
    };
    let common = r.repo.common_dir().to_path_buf();
    let mut made: Vec<(PathBuf, String)> = Vec::new();
    for seat in &r.seats {
        let path = worktree_path(&common, &seat.branch);
        if let Some(parent) = path.parent()
            && let Err(e) = std::fs::create_dir_all(parent)
        {
            roll_back(r.repo, &made);
            return Err(Error::io("cannot create the racers' folder", parent)(e));
        }
        let added = r.repo.add_worktree(&path, &seat.branch, r.start);
        if INTERRUPTS.load(Ordering::SeqCst) > 0 {
            if added.is_ok() {
                made.push((path, seat.branch.clone()));
            }
            roll_back(r.repo, &made);
            return Err(Error::Interrupted {
                signal: "SIGINT",
                code: 130,
            });
        }
        if let Err(e) = added {
            roll_back(r.repo, &made);
            return Err(e);
        }
        made.push((path, seat.branch.clone()));
    }

    let (sender, messages) = mpsc::channel::<Msg>();
    let mut racers: Vec<Racer> = Vec::new();
    for (i, (seat, (path, _))) in r.seats.iter().zip(&made).enumerate() {
        let mut racer = Racer {
            seat: seat.clone(),
            worktree: path.clone(),
            child: None,
            pid: None,
            run: None,
            turns: 0,
            iterations: 0,
            open_turn: None,
            usage: Usage::default(),
            outcome: None,
            reason: String::new(),
            last_stderr: String::new(),
            exit_code: None,
            exited: false,
            exited_at: None,
            stdout_open: false,
            stopped: false,
            signals: 0,
            report: None,
        };
        let mut command = Command::new(&exe);
        command.arg("-C").arg(path);
        if r.file_given {
            let file = path.join(r.goal_rel);
            command.arg("--file").arg(&file).env("GOAL_FILE", &file);
        } else {
            command.env_remove("GOAL_FILE");
        }
        command.arg("--json").args(&r.run_args);
        if seat.preset {
            command.arg(format!("--agent={}", seat.agent));
        }
        command
            .args(&r.tail)
            .current_dir(path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group: the terminal's Ctrl-C comes to this process, which passes
            // it on to every racer at once.
            .process_group(0);
        match command.spawn() {
            Ok(mut child) => {
                racer.pid = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
                if let Some(out) = child.stdout.take() {
                    racer.stdout_open = true;
                    pump(i, out, sender.clone(), false);
                }
                if let Some(err) = child.stderr.take() {
                    pump(i, err, sender.clone(), true);
                }
                racer.child = Some(child);
                (r.say)(&format!(
                    "{}: started ({}) in {}",
                    seat.branch,
                    seat.agent,
                    path.display()
                ));
            }
            Err(e) => {
                racer.exited = true;
                racer.outcome = Some(RacerOutcome::Error);
                racer.reason = format!("cannot start `{}`: {e}", exe.display());
            }
        }
        racers.push(racer);
    }
    drop(sender);

    let mut winner: Option<usize> = None;
    let mut seen_interrupts = 0;
    let mut interrupted = false;
    loop {
        // Ctrl-C: passed on to every racer still running (the first ends each after its turn,
        // the second stops them all).
        let now = INTERRUPTS.load(Ordering::SeqCst);
        while seen_interrupts < now {
            seen_interrupts += 1;
            interrupted = true;
            for racer in racers.iter_mut().filter(|x| !x.exited && !x.stopped) {
                racer.signals += 1;
                signal(racer.pid, nth_interrupt(racer.signals));
            }
            (r.say)(if seen_interrupts == 1 {
                "Ctrl-C: every racer finishes its turn, then stops (Ctrl-C again stops them now)"
            } else {
                "Ctrl-C again: stopping every racer now"
            });
        }
        match messages.recv_timeout(Duration::from_millis(50)) {
            Ok(Msg::Line(i, line)) => {
                let won = on_event(&mut racers[i], &line, r.say);
                // One told to stop already (another won first) cannot win.
                if won && winner.is_none() && !racers[i].stopped {
                    winner = Some(i);
                    let branch = racers[i].seat.branch.clone();
                    (r.say)(&format!("{branch} won: stopping the others"));
                    for (j, other) in racers.iter_mut().enumerate() {
                        if j != i && !other.exited {
                            stop(other);
                        }
                    }
                }
            }
            Ok(Msg::Stderr(i, line)) => {
                if !line.trim().is_empty() {
                    racers[i].last_stderr = line.trim().to_string();
                }
                (r.note)(&format!("{}: {line}", racers[i].seat.branch));
            }
            Ok(Msg::Closed(i)) => racers[i].stdout_open = false,
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {}
        }
        for racer in racers.iter_mut().filter(|x| !x.exited) {
            if let Some(child) = racer.child.as_mut()
                && let Ok(Some(status)) = child.try_wait()
            {
                racer.exited = true;
                racer.exited_at = Some(Instant::now());
                racer.exit_code = Some(
                    status
                        .code()
                        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)),
                );
            }
        }
        let winner_branch = winner.map(|w| racers[w].seat.branch.clone());
        for (i, racer) in racers.iter_mut().enumerate() {
            // Its last events are read before it is finished, unless something it started
            // holds its stdout open long after it exited.
            let drained = !racer.stdout_open
                || racer
                    .exited_at
                    .is_some_and(|t| t.elapsed() > Duration::from_secs(2));
            if racer.exited && drained && racer.report.is_none() {
                let won = winner == Some(i);
                racer.report = Some(finish(&r, racer, won, winner_branch.as_deref()));
            }
        }
        if racers.iter().all(|x| x.report.is_some()) {
            break;
        }
    }
    remove_race_dir(&common);
    let reports: Vec<RacerReport> = racers.into_iter().filter_map(|x| x.report).collect();
    let codes: Vec<i32> = reports.iter().filter_map(|x| x.exit_code).collect();
    let winner = reports.iter().find(|x| x.winner).map(|x| x.branch.clone());
    Ok(RaceReport {
        code: exit_code(winner.is_some(), interrupted, &codes),
        racers: reports,
        winner,
        interrupted,
    })
}

/// Stop a racer as a second Ctrl-C would: its agent's process group is killed at once.
fn stop(racer: &mut Racer) {
    if racer.stopped {
        return;
    }
    racer.stopped = true;
    while racer.signals < 2 {
        racer.signals += 1;
        signal(racer.pid, nth_interrupt(racer.signals));
    }
}

/// Copy a racer's stdout (its JSON events) or stderr to the race, a line at a time.
fn pump(i: usize, source: impl Read + Send + 'static, sender: mpsc::Sender<Msg>, is_err: bool) {
    std::thread::spawn(move || {
        for line in BufReader::new(source).lines() {
            let Ok(line) = line else { break };
            let msg = if is_err {
                Msg::Stderr(i, line)
            } else {
                Msg::Line(i, line)
            };
            if sender.send(msg).is_err() {
                return;
            }
        }
        if !is_err {
            let _ = sender.send(Msg::Closed(i));
        }
    });
}

/// Follow one event of a racer's `goal run --json`; true when it says the goal is complete.
fn on_event(racer: &mut Racer, line: &str, say: &dyn Fn(&str)) -> bool {
    let Ok(event) = serde_json::from_str::<Value>(line) else {
        return false;
    };
    let Some(name) = event.get("event").and_then(Value::as_str) else {
        return false;
    };
    let branch = racer.seat.branch.clone();
    let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default();
    match name {
        "start" => racer.run = event.get("run").and_then(Value::as_str).map(str::to_string),
        "turn_start" => {
            racer.turns += 1;
            racer.open_turn = event.get("turn").and_then(Value::as_u64);
            say(&format!(
                "{branch}: turn {} started",
                racer.open_turn.unwrap_or(racer.turns)
            ));
        }
        "turn_end" => {
            racer.usage = racer.usage.plus(turn_usage(&racer.seat, &event));
            say(&format!("{branch}: turn ended: {}", text("end")));
        }
        "iterate" => {
            racer.iterations += 1;
            racer.open_turn = None;
            // After the agent's own `goal done` the goal is gone and the event says iteration 0.
            let iteration = event
                .get("iteration")
                .and_then(Value::as_u64)
                .filter(|n| *n > 0)
                .unwrap_or(racer.iterations);
            say(&format!(
                "{branch}: iteration {iteration} recorded (by {})",
                match text("recorded_by") {
                    "" => "the run",
                    by => by,
                }
            ));
        }
        "retry" => say(&format!("{branch}: retry — {}", text("reason"))),
        "done_refused" => say(&format!(
            "{branch}: `goal done` refused: {}",
            text("refusal").lines().next().unwrap_or_default()
        )),
        _ => {
            if let Some(outcome) = RacerOutcome::of_event(name) {
                racer.outcome = Some(outcome);
                racer.reason = text("reason").to_string();
                if racer.stopped && outcome != RacerOutcome::Complete {
                    say(&format!("{branch}: stopped"));
                } else {
                    say(&format!("{branch}: {}", racer.reason));
                }
                return outcome == RacerOutcome::Complete;
            }
        }
    }
    false
}

/// What one turn used: the `usage` its `turn_end` event carries, else read from the turn's log
/// with the preset's reader (a custom command: the first reader that finds any).
fn turn_usage(seat: &Seat, event: &Value) -> Usage {
    if let Some(u) = event.get("usage").filter(|u| u.is_object()) {
        return Usage {
            input_tokens: u.get("input_tokens").and_then(Value::as_u64),
            output_tokens: u.get("output_tokens").and_then(Value::as_u64),
            cost_usd: u.get("cost_usd").and_then(Value::as_f64),
        };
    }
    let Some(log) = event.get("log").and_then(Value::as_str) else {
        return Usage::default();
    };
    let Ok(output) = std::fs::read_to_string(log) else {
        return Usage::default();
    };
    if seat.preset {
        return presets::preset(&seat.agent).map_or_else(Usage::default, |p| (p.usage)(&output));
    }
    presets::names()
        .into_iter()
        .filter_map(presets::preset)
        .map(|p| (p.usage)(&output))
        .find(|u| *u != Usage::default())
        .unwrap_or_default()
}

/// A racer's run has ended: record its cut-short turn, take its standing, keep its turn logs,
/// remove its worktree unless it must stay.
fn finish(r: &Race, racer: &mut Racer, won: bool, winner: Option<&str>) -> RacerReport {
    let code = racer.exit_code;
    let mut outcome = racer
        .outcome
        .unwrap_or_else(|| code.map_or(RacerOutcome::Error, RacerOutcome::of_code));
    if racer.stopped && outcome != RacerOutcome::Complete {
        outcome = RacerOutcome::Stopped;
        racer.reason = format!(
            "stopped: {} won the race",
            winner.unwrap_or("another racer")
        );
    }
    if racer.reason.is_empty() {
        racer.reason = racer.last_stderr.clone();
    }
    let ctx = Ctx {
        cwd: racer.worktree.clone(),
        file: r.file_given.then(|| racer.worktree.join(r.goal_rel)),
        json: true,
        quiet: true,
        color: false,
    };
    let branch = racer.seat.branch.clone();
    // The turn the winner cut short is an iteration too: nothing is left uncommitted.
    if racer.stopped
        && let (Some(turn), Some(winner)) = (racer.open_turn, winner)
    {
        match record_cut_short(&ctx, turn, winner, racer.run.clone(), &racer.seat.agent) {
            Ok(true) => {
                racer.iterations += 1;
                (r.say)(&format!(
                    "{branch}: turn {turn} cut short, recorded as an iteration"
                ));
            }
            Ok(false) => {}
            Err(e) => (r.note)(&format!("{branch}: cannot record the turn cut short: {e}")),
        }
    }
    let tip = r.repo.branch_tip(&branch);
    let (proven, total, logs) = match Workspace::open(&ctx) {
        Ok(ws) => {
            let (proven, total) = standing(&ws, tip);
            (
                proven,
                total,
                Some(ws.repo.git_dir().join("goal").join("runs")),
            )
        }
        Err(_) => (None, None, None),
    };
    let tree = |commit: Oid| r.repo.commit_info(commit).ok().map(|c| c.tree);
    let diff = tip
        .and_then(tree)
        .and_then(|to| r.repo.diff_stat(tree(r.start), to, r.goal_dir).ok())
        .map(Diff::from)
        .unwrap_or_default();
    let kept_because = keep_reason(r.repo, &racer.worktree, r.keep_worktrees);
    if kept_because.is_none() {
        // Its turn logs live in the worktree's own git folder, which goes with it.
        if let Some(logs) = &logs {
            keep_logs(logs, &r.repo.common_dir().join("goal").join("runs"));
        }
        if let Err(why) = r
            .repo
            .remove_worktree(&racer.worktree, false)
            .unwrap_or_else(|e| Err(e.to_string()))
        {
            return report(
                racer,
                outcome,
                won,
                proven,
                total,
                diff,
                Some(format!("`git worktree remove` refused: {why}")),
            );
        }
    }
    report(racer, outcome, won, proven, total, diff, kept_because)
}

fn report(
    racer: &Racer,
    outcome: RacerOutcome,
    won: bool,
    proven: Option<usize>,
    total: Option<usize>,
    diff: Diff,
    kept_because: Option<String>,
) -> RacerReport {
    RacerReport {
        agent: racer.seat.agent.clone(),
        branch: racer.seat.branch.clone(),
        worktree: racer.worktree.display().to_string(),
        iterations: racer.iterations,
        turns: racer.turns,
        usage: racer.usage,
        proven,
        total,
        diff,
        winner: won,
        outcome,
        reason: racer.reason.clone(),
        exit_code: racer.exit_code,
        run: racer.run.clone(),
        worktree_kept: kept_because.is_some(),
        kept_because,
    }
}

/// Record the turn a winner cut short as an iteration (as `goal iterate`); false when the goal is
/// no longer in progress there.
fn record_cut_short(
    ctx: &Ctx,
    turn: u64,
    winner: &str,
    run: Option<String>,
    agent: &str,
) -> Result<bool> {
    let ws = Workspace::open(ctx)?;
    if !ws
        .read_goal()?
        .is_some_and(|g| g.status == Status::InProgress)
    {
        return Ok(false);
    }
    crate::ops::iterate::iterate(
        &ws,
        crate::ops::iterate::Options {
            messages: vec![format!("turn {turn}: cut short: {winner} won the race")],
            goal_only: false,
            run_id: run,
            // The racer's agent made the turn (its usage was never reported: it was cut short).
            run_agent: Some(agent.to_string()),
            usage: None,
            quiet: true,
        },
    )?;
    Ok(true)
}

/// Proven and total criteria: judged on the worktree while its goal is live, else as the last
/// goal commit on its branch counted them (a completed goal's files are gone).
fn standing(ws: &Workspace, tip: Option<Oid>) -> (Option<usize>, Option<usize>) {
    if let Ok(Some(goal)) = ws.read_goal()
        && let Ok(proof) = crate::ops::proof(ws, &goal)
    {
        return (Some(proof.proven), Some(goal.criteria.len()));
    }
    let mut at = tip;
    for _ in 0..8 {
        let Some(id) = at else { break };
        let Ok((info, parent)) = ws.repo.commit_and_parent(id) else {
            break;
        };
        if let Some(t) = GoalTrailers::read(&info) {
            return (Some(t.passing), Some(t.total));
        }
        at = parent;
    }
    (None, None)
}

/// Move a worktree's turn logs (`<its git dir>/goal/runs/<run>`) to the repository's own.
fn keep_logs(from: &Path, to: &Path) {
    if from == to {
        return;
    }
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    let _ = std::fs::create_dir_all(to);
    for entry in entries.flatten() {
        let dest = to.join(entry.file_name());
        if !dest.exists() {
            let _ = std::fs::rename(entry.path(), dest);
        }
    }
}

/// Why a racer's worktree must stay (None: it may go): `--keep-worktrees`, uncommitted work, or
/// a HEAD on no branch (its commits would be left on nothing).
fn keep_reason(repo: &Repo, worktree: &Path, keep: bool) -> Option<String> {
    if keep {
        return Some("--keep-worktrees".into());
    }
    if !worktree.exists() {
        return Some("it is gone already".into());
    }
    match uncommitted(worktree) {
        Ok(paths) if !paths.is_empty() => {
            return Some(format!(
                "it holds uncommitted work ({} path(s); see `git -C {} status`)",
                paths.len(),
                worktree.display()
            ));
        }
        Ok(_) => {}
        Err(e) => return Some(e.to_string()),
    }
    match head_of(worktree) {
        Ok(Some(head)) => match repo.on_a_branch(head) {
            Ok(true) => None,
            Ok(false) => Some(format!(
                "its HEAD {} is on no branch (`git -C {} switch -c <name>` keeps it)",
                crate::ops::short(head),
                worktree.display()
            )),
            Err(e) => Some(e.to_string()),
        },
        Ok(None) => None,
        Err(e) => Some(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        let cases: &[(&str, &str)] = &[
            ("Say hello", "say-hello"),
            (
                "Rate limit the /login endpoint!",
                "rate-limit-the-login-endpoint",
            ),
            ("  Fix: über-bug #12 ", "fix-ber-bug-12"),
            ("", "goal"),
            ("€€€", "goal"),
            (
                "make every request to the login endpoint return quickly",
                "make-every-request-to-the-login-endpoint",
            ),
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b",
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(slug(text), *want, "{text:?}");
        }
    }

    fn branches(seats: &[Seat]) -> Vec<&str> {
        seats.iter().map(|s| s.branch.as_str()).collect()
    }

    #[test]
    fn racers_take_the_agents_in_turn_and_names_never_repeat() {
        let agents = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let free = |_: &str| false;
        // Racers, agents, the custom command, the branches.
        type Case<'a> = (usize, &'a [&'a str], Option<&'a str>, &'a [&'a str]);
        let cases: &[Case] = &[
            (
                2,
                &["claude", "codex"],
                None,
                &["goal/x-claude", "goal/x-codex"],
            ),
            (
                3,
                &["claude", "codex"],
                None,
                &["goal/x-claude-1", "goal/x-codex", "goal/x-claude-2"],
            ),
            (2, &["pi"], None, &["goal/x-pi-1", "goal/x-pi-2"]),
            (3, &[], Some("sh"), &["goal/x-1", "goal/x-2", "goal/x-3"]),
        ];
        for (n, list, command, want) in cases {
            let seats = seats("x", *n, &agents(list), *command, &free);
            assert_eq!(branches(&seats), *want, "{n} {list:?} {command:?}");
            assert!(seats.iter().all(|s| s.preset == command.is_none()));
        }
        let seats = seats("x", 3, &agents(&["claude", "codex"]), None, &free);
        let taken: Vec<&str> = seats.iter().map(|s| s.agent.as_str()).collect();
        assert_eq!(taken, ["claude", "codex", "claude"]);
        // A name in use already (an earlier race's branch) gets the next free suffix.
        let used = |b: &str| b == "goal/x-1" || b == "goal/x-2";
        let seats = super::seats("x", 2, &[], Some("sh"), &used);
        assert_eq!(branches(&seats), ["goal/x-1-2", "goal/x-2-2"]);
        assert!(super::seats("x", 2, &[], None, &free).is_empty());
    }

    #[test]
    fn the_race_exit_code() {
        let cases: &[(bool, bool, &[i32], u8)] = &[
            (true, false, &[0, 130], 0),
            (true, true, &[0, 130], 0),
            (false, true, &[130, 130], 130),
            (false, false, &[3, 1], 1),
            (false, false, &[3, 2], 2),
            (false, false, &[3, 3], 3),
            (false, false, &[130, 3], 3),
            (false, false, &[143], 143),
            (false, false, &[], 2),
        ];
        for (won, interrupted, codes, want) in cases {
            assert_eq!(
                exit_code(*won, *interrupted, codes),
                *want,
                "{won} {interrupted} {codes:?}"
            );
        }
    }

    #[test]
    fn outcomes_from_events_and_codes() {
        assert_eq!(RacerOutcome::of_event("done"), Some(RacerOutcome::Complete));
        assert_eq!(RacerOutcome::of_event("budget"), Some(RacerOutcome::Budget));
        assert_eq!(RacerOutcome::of_event("turn_end"), None);
        assert_eq!(RacerOutcome::of_code(0), RacerOutcome::Complete);
        assert_eq!(RacerOutcome::of_code(3), RacerOutcome::Budget);
        assert_eq!(RacerOutcome::of_code(130), RacerOutcome::Interrupted);
        assert_eq!(RacerOutcome::of_code(1), RacerOutcome::Error);
        assert_eq!(nth_interrupt(1), Signal::INT);
        assert_eq!(nth_interrupt(2), Signal::TERM);
        assert_eq!(
            worktree_path(Path::new("/r/.git"), "goal/x-pi"),
            Path::new("/r/.git/goal/race/x-pi")
        );
    }
}
