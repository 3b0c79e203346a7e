//! `goal run --race N`: N racers side by side, each a `goal run --json` child of this process in
//! its own new linked worktree and branch; the first whose `goal done` succeeds wins, the others
//! are stopped as by a second Ctrl-C and the turn each had under way is recorded as an iteration.
//! The plan (`plan`: branch names, agents, the exit code) is pure; the rest is the edge: the
//! worktrees (`worktrees`), the child processes with their event streams and signals (here), and
//! each racer's end and the report (`report`).

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
use crate::error::{Error, Result};
use crate::repo::{Oid, Repo};
use crate::usage::Usage;

mod ending;
mod plan;
mod worktrees;

pub use ending::{Diff, RaceReport, RacerReport, standing};
pub use plan::{RacerOutcome, Seat, exit_code, seats, slug};
pub use worktrees::worktree_path;

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
    /// `--claim <remote>`: the race runs through that remote too (each racer is a claimant).
    pub claim: Option<String>,
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
    /// Its reason was shown as its run's end was read (the summary need not say it again).
    reason_shown: bool,
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
    /// `--claim`: the race id and the winner's branch its summary named.
    race_id: Option<String>,
    claimed_by: Option<String>,
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
    let made = worktrees::make(r.repo, &r.seats, r.start)?;
    let (sender, messages) = mpsc::channel::<Msg>();
    let mut racers: Vec<Racer> = Vec::new();
    for (i, (seat, (path, _))) in r.seats.iter().zip(&made).enumerate() {
        let racer = start_racer(&r, &exe, i, seat, path, &sender);
        racers.push(racer);
    }
    drop(sender);
    let mut watch = Watch::default();
    loop {
        watch.pass_interrupts(&r, &mut racers);
        match messages.recv_timeout(Duration::from_millis(50)) {
            Ok(msg) => watch.message(&r, &mut racers, msg),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {}
        }
        reap(&mut racers);
        finish_reports(&r, &mut racers, watch.winner);
        if racers.iter().all(|x| x.report.is_some()) {
            break;
        }
    }
    worktrees::remove_race_dir(&common);
    Ok(race_report(racers, watch.interrupted))
}

/// A racer at the start: its seat and worktree, nothing run yet.
fn new_racer(seat: &Seat, worktree: &Path) -> Racer {
    Racer {
        seat: seat.clone(),
        worktree: worktree.to_path_buf(),
        child: None,
        pid: None,
        run: None,
        turns: 0,
        iterations: 0,
        open_turn: None,
        usage: Usage::default(),
        outcome: None,
        reason: String::new(),
        reason_shown: false,
        last_stderr: String::new(),
        exit_code: None,
        exited: false,
        exited_at: None,
        stdout_open: false,
        stopped: false,
        signals: 0,
        race_id: None,
        claimed_by: None,
        report: None,
    }
}

/// The `goal --json run …` a racer is, in its worktree and a process group of its own.
fn racer_command(r: &Race, exe: &Path, seat: &Seat, path: &Path) -> Command {
    let mut command = Command::new(exe);
    command.arg("-C").arg(path);
    if r.file_given {
        let file = path.join(r.goal_rel);
        command.arg("--file").arg(&file).env("GOAL_FILE", &file);
    } else {
        command.env_remove("GOAL_FILE");
    }
    command.arg("--json").args(&r.run_args);
    if r.claim.is_some() {
        // Its worktree's branch is new, made for it: it claims on that one.
        command.env(super::claim::SEAT_ENV, "1");
    }
    if seat.preset {
        command.arg(format!("--agent={}", seat.agent));
    }
    command
        .args(&r.tail)
        .current_dir(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group: the terminal's Ctrl-C comes to this process, which passes it
        // on to every racer at once.
        .process_group(0);
    command
}

/// Racer `i` started, its output pumped into `sender`; one that cannot start has ended.
fn start_racer(
    r: &Race,
    exe: &Path,
    i: usize,
    seat: &Seat,
    path: &Path,
    sender: &mpsc::Sender<Msg>,
) -> Racer {
    let mut racer = new_racer(seat, path);
    match racer_command(r, exe, seat, path).spawn() {
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
    racer
}

/// What the race has seen: the winner, the interrupts passed on.
#[derive(Default)]
struct Watch {
    winner: Option<usize>,
    seen_interrupts: usize,
    interrupted: bool,
}

impl Watch {
    /// Ctrl-C: passed on to every racer still running (the first ends each after its turn, the
    /// second stops them all).
    fn pass_interrupts(&mut self, r: &Race, racers: &mut [Racer]) {
        let now = INTERRUPTS.load(Ordering::SeqCst);
        while self.seen_interrupts < now {
            self.seen_interrupts += 1;
            self.interrupted = true;
            for racer in racers.iter_mut().filter(|x| !x.exited && !x.stopped) {
                racer.signals += 1;
                signal(racer.pid, nth_interrupt(racer.signals));
            }
            (r.say)(if self.seen_interrupts == 1 {
                "Ctrl-C: every racer finishes its turn, then stops (Ctrl-C again stops them now)"
            } else {
                "Ctrl-C again: stopping every racer now"
            });
        }
    }

    /// A racer's event line (the first proven wins and the others are stopped), a line of its
    /// stderr, or its stdout closing.
    fn message(&mut self, r: &Race, racers: &mut [Racer], msg: Msg) {
        match msg {
            Msg::Line(i, line) => {
                let won = on_event(&mut racers[i], &line, r.say);
                // One told to stop already (another won first) cannot win.
                if won && self.winner.is_none() && !racers[i].stopped {
                    self.winner = Some(i);
                    let branch = racers[i].seat.branch.clone();
                    (r.say)(&format!("{branch} won: stopping the others"));
                    for (j, other) in racers.iter_mut().enumerate() {
                        if j != i && !other.exited {
                            stop(other);
                        }
                    }
                }
            }
            Msg::Stderr(i, line) => {
                if !line.trim().is_empty() {
                    racers[i].last_stderr = line.trim().to_string();
                }
                (r.note)(&format!("{}: {line}", racers[i].seat.branch));
            }
            Msg::Closed(i) => racers[i].stdout_open = false,
        }
    }
}

/// The racers that exited since the last look, with their exit codes.
fn reap(racers: &mut [Racer]) {
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
}

/// The report of each racer that exited and whose last events were read (unless something it
/// started holds its stdout open long after it exited).
fn finish_reports(r: &Race, racers: &mut [Racer], winner: Option<usize>) {
    let winner_branch = winner.map(|w| racers[w].seat.branch.clone());
    for (i, racer) in racers.iter_mut().enumerate() {
        let drained = !racer.stdout_open
            || racer
                .exited_at
                .is_some_and(|t| t.elapsed() > Duration::from_secs(2));
        if racer.exited && drained && racer.report.is_none() {
            let won = winner == Some(i);
            racer.report = Some(ending::finish(r, racer, won, winner_branch.as_deref()));
        }
    }
}

/// The race's report: every racer's, the winner (through a remote, maybe another machine's
/// racer) and the exit code.
fn race_report(racers: Vec<Racer>, interrupted: bool) -> RaceReport {
    let race_id = racers.iter().find_map(|x| x.race_id.clone());
    let claimed_by = racers.iter().find_map(|x| x.claimed_by.clone());
    let reports: Vec<RacerReport> = racers.into_iter().filter_map(|x| x.report).collect();
    let codes: Vec<i32> = reports.iter().filter_map(|x| x.exit_code).collect();
    let local_winner = reports.iter().find(|x| x.winner).map(|x| x.branch.clone());
    RaceReport {
        code: exit_code(
            local_winner.is_some(),
            interrupted,
            reports.iter().any(|x| x.outcome == RacerOutcome::Lost),
            &codes,
        ),
        racers: reports,
        winner: local_winner.or(claimed_by),
        race_id,
        interrupted,
    }
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
        // A claiming racer's summary: the race's id, and the winner it knows of.
        "race" => {
            racer.race_id = event
                .get("race_id")
                .and_then(Value::as_str)
                .map(str::to_string);
            racer.claimed_by = event
                .get("winner")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
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
                    racer.reason_shown = true;
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

#[cfg(test)]
mod tests;
