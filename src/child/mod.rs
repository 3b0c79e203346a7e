//! Commands `goal` runs (verify's command, clean-up checks, notify): each in its own process
//! group, with Ctrl-C and SIGTERM passed on to the whole group and no process left behind.
//!
//! A child in its own group does not get the terminal's Ctrl-C, so `goal` catches SIGINT/SIGTERM
//! while a child runs and sends them on itself: first the same signal, then, after a grace period,
//! SIGKILL to whatever is left. Outside a child run both signals keep their default action.
//! A pin's run is also bounded in time and memory ([`bounds`]).

mod bounds;
mod cgroup;
mod process_tree;

pub use bounds::{
    Bounds, DEFAULT_TIMEOUT_SECS, LongerRuns, bound_pins_by, default_memory, machine_memory, mib,
    pin_bounds, pin_timeout_each,
};

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};
use signal_hook::consts::{SIGINT, SIGPIPE, SIGTERM};

use crate::error::{Error, Result};

/// The longest grace period between passing a signal on and killing what is left.
const MAX_GRACE: Duration = Duration::from_secs(3);

/// Signal state shared with the handlers.
struct Handlers {
    /// True outside a child run: SIGINT/SIGTERM then do what they do by default.
    outside_child: Arc<AtomicBool>,
    /// The signal received during a child run (0: none).
    received: Arc<AtomicUsize>,
}

static HANDLERS: OnceLock<Option<Handlers>> = OnceLock::new();
/// A closed stdout ends `goal` quietly, as it ends git (default SIGPIPE), except while a child
/// runs: then a failed write only stops the copy of the child's output.
static PIPE_KILLS: OnceLock<Arc<AtomicBool>> = OnceLock::new();
/// The signal that stopped a child in this process, if one did (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);
/// Set by `goal run`, which counts SIGINT/SIGTERM itself: they never take their default action.
static HELD: AtomicBool = AtomicBool::new(false);

/// Keep SIGINT/SIGTERM from ending the process for good (`goal run` counts them itself).
pub fn hold_signals() {
    HELD.store(true, Ordering::SeqCst);
    if let Some(h) = handlers() {
        h.outside_child.store(false, Ordering::SeqCst);
    }
}

/// Make a closed stdout end the process quietly instead of a panic on the next `println!`.
/// Called once, first thing in `main`.
pub fn quiet_on_closed_pipe() {
    PIPE_KILLS.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(true));
        let _ = signal_hook::flag::register_conditional_default(SIGPIPE, Arc::clone(&flag));
        flag
    });
}

/// While alive, a write to a closed pipe fails with EPIPE instead of ending the process (for
/// writes to a child's stdin).
pub struct QuietPipe {
    was: bool,
}

impl QuietPipe {
    pub fn new() -> QuietPipe {
        let was = PIPE_KILLS
            .get()
            .is_some_and(|p| p.swap(false, Ordering::SeqCst));
        QuietPipe { was }
    }
}

impl Default for QuietPipe {
    fn default() -> Self {
        QuietPipe::new()
    }
}

impl Drop for QuietPipe {
    fn drop(&mut self) {
        if let Some(p) = PIPE_KILLS.get() {
            p.store(self.was, Ordering::SeqCst);
        }
    }
}

fn handlers() -> Option<&'static Handlers> {
    HANDLERS
        .get_or_init(|| {
            let outside_child = Arc::new(AtomicBool::new(true));
            let received = Arc::new(AtomicUsize::new(0));
            for signal in [SIGINT, SIGTERM] {
                // The default action must be registered first: it ends the process before the
                // flag is set when no child runs.
                signal_hook::flag::register_conditional_default(signal, Arc::clone(&outside_child))
                    .ok()?;
                signal_hook::flag::register_usize(signal, Arc::clone(&received), signal as usize)
                    .ok()?;
            }
            Some(Handlers {
                outside_child,
                received,
            })
        })
        .as_ref()
}

/// The signal (2 or 15) that stopped a child run in this process, if any.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// The grace period: `GOAL_SIGNAL_GRACE` seconds (at most 3; tests use a fraction), else 3.
pub fn grace() -> Duration {
    std::env::var("GOAL_SIGNAL_GRACE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(MAX_GRACE, Duration::from_secs_f64)
        .min(MAX_GRACE)
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// The pending signal of each child run alive in this process (`goal done` supervises the clean
/// run and an exam's run at once, from two threads): a signal the handler caught is handed to
/// every one of them, so that each passes it on to its own process group.
static LIVE: Mutex<Vec<Arc<AtomicUsize>>> = Mutex::new(Vec::new());

fn live() -> std::sync::MutexGuard<'static, Vec<Arc<AtomicUsize>>> {
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// While it lives, SIGINT/SIGTERM are caught for the child and a closed stdout does not kill.
/// The process-wide state is set when the first of the live runs starts and put back when the
/// last one ends.
struct ChildRun {
    handlers: Option<&'static Handlers>,
    /// The signal handed to this run and not yet taken (0: none).
    mine: Arc<AtomicUsize>,
}

impl ChildRun {
    fn start() -> ChildRun {
        let handlers = handlers();
        let mine = Arc::new(AtomicUsize::new(0));
        let mut live = live();
        if live.is_empty() {
            if let Some(h) = handlers {
                h.received.store(0, Ordering::SeqCst);
                h.outside_child.store(false, Ordering::SeqCst);
            }
            if let Some(pipe) = PIPE_KILLS.get() {
                pipe.store(false, Ordering::SeqCst);
            }
        }
        live.push(Arc::clone(&mine));
        ChildRun { handlers, mine }
    }

    /// Take the signal received since the last call, if any: one the handler caught is handed
    /// to every live run first.
    fn take_signal(&self) -> Option<i32> {
        let h = self.handlers?;
        let caught = h.received.swap(0, Ordering::SeqCst);
        if caught != 0 {
            for run in live().iter() {
                run.store(caught, Ordering::SeqCst);
            }
        }
        match self.mine.swap(0, Ordering::SeqCst) {
            0 => None,
            s => i32::try_from(s).ok(),
        }
    }
}

impl Drop for ChildRun {
    fn drop(&mut self) {
        let mut live = live();
        live.retain(|run| !Arc::ptr_eq(run, &self.mine));
        if !live.is_empty() {
            return;
        }
        if let Some(h) = self.handlers
            && !HELD.load(Ordering::SeqCst)
        {
            h.outside_child.store(true, Ordering::SeqCst);
        }
        if let Some(pipe) = PIPE_KILLS.get() {
            pipe.store(true, Ordering::SeqCst);
        }
    }
}

/// What the supervisor hears from its helper threads.
enum Event {
    Exited(std::io::Result<ExitStatus>),
    PumpDone,
}

fn send_to_group(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        let _ = rustix::process::kill_process_group(group, signal);
    }
}

fn group_alive(group: Option<Pid>) -> bool {
    let Some(group) = group else {
        return false;
    };
    if rustix::process::test_kill_process_group(group).is_err() {
        return false;
    }
    // A zombie still answers kill(2) until its new parent reaps it, and in a container that
    // parent (process 1) may reap late or never: on Linux, only a member that is not one counts.
    live_member(group).unwrap_or(true)
}

/// Whether /proc shows a process of `group` that is not a zombie (None: no /proc to read).
fn live_member(group: Pid) -> Option<bool> {
    let wanted = group.as_raw_nonzero().get().to_string();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (Some(state), Some(_ppid), Some(pgrp)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if pgrp == wanted && state != "Z" && state != "X" {
            return Some(true);
        }
    }
    Some(false)
}

/// End whatever is left of a process group: SIGTERM, then SIGKILL once `grace` runs out (or at
/// once when `hurry` says so: a second Ctrl-C), then wait until the group is gone. A shell's
/// background jobs ignore SIGINT and outlive the shell, so a command's end is not its group's.
pub fn end_group(
    group: Option<Pid>,
    first: Signal,
    grace: Duration,
    mut hurry: impl FnMut() -> bool,
) {
    if !group_alive(group) {
        return;
    }
    send_to_group(group, first);
    let deadline = Instant::now() + grace;
    while group_alive(group) && Instant::now() < deadline && !hurry() {
        std::thread::sleep(Duration::from_millis(5));
    }
    send_to_group(group, Signal::KILL);
    // SIGKILL cannot be ignored; the wait is for the kernel to take them (and their parent, or
    // init, to reap them), bounded so that a zombie nobody reaps cannot hold `goal` up.
    let until = Instant::now() + Duration::from_secs(2);
    while group_alive(group) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// How long output copies may go on once the child and its group are gone: a process that left
/// the group (setsid) may still hold the pipe open.
const DRAIN: Duration = Duration::from_millis(300);

/// Wait for the child to exit and `pumps` output copies to finish, passing SIGINT/SIGTERM on to
/// its process group. Ok(status) when it ended by itself; Err(signal) when a signal stopped it.
/// Either way nothing of its process group is left when this returns.
fn supervise(
    run: &ChildRun,
    child: Child,
    events: mpsc::Receiver<Event>,
    sender: mpsc::Sender<Event>,
    pumps: usize,
    mut watch: Option<&mut bounds::Watch>,
) -> std::result::Result<std::io::Result<ExitStatus>, i32> {
    let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    if let Some(w) = watch.as_deref_mut() {
        w.started(child.id());
    }
    std::thread::spawn(move || {
        let mut child = child;
        let _ = sender.send(Event::Exited(child.wait()));
    });
    let tick = Duration::from_millis(20);
    let mut status = None;
    let mut pumps_left = pumps;
    let mut drain_until: Option<Instant> = None;
    let signal = loop {
        if let Some(signal) = run.take_signal() {
            break signal;
        }
        let drained = pumps_left == 0 || drain_until.is_some_and(|t| Instant::now() >= t);
        if drained && let Some(status) = status.take() {
            return Ok(status);
        }
        if status.is_none()
            && let Some(w) = watch.as_deref_mut()
            && w.check()
        {
            send_to_group(group, Signal::KILL);
        }
        match events.recv_timeout(tick) {
            Ok(Event::Exited(s)) => {
                status = Some(s);
                // The command is done: what it left running in its group goes too, and in its
                // tree when it is a pin's run.
                end_group(group, Signal::TERM, grace(), || false);
                if let Some(w) = watch.as_deref_mut() {
                    w.finish();
                }
                drain_until = Some(Instant::now() + DRAIN);
            }
            Ok(Event::PumpDone) => pumps_left = pumps_left.saturating_sub(1),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                std::thread::sleep(tick);
            }
        }
    };
    INTERRUPTED.store(signal, Ordering::SeqCst);
    // The whole group, not only the child: a background process of a shell script is in it too.
    // A second Ctrl-C does not wait for the grace period.
    end_group(
        group,
        Signal::from_named_raw(signal).unwrap_or(Signal::TERM),
        grace(),
        || run.take_signal().is_some(),
    );
    if let Some(w) = watch {
        w.kill_all();
    }
    // Reap the child; its output copies end with it (or with the process).
    let until = Instant::now() + Duration::from_secs(1);
    while status.is_none() && Instant::now() < until {
        if let Ok(Event::Exited(s)) = events.recv_timeout(Duration::from_millis(10)) {
            status = Some(s);
        }
    }
    Err(signal)
}

fn interrupted_error(signal: i32) -> Error {
    Error::Interrupted {
        signal: signal_name(signal),
        code: u8::try_from(128 + signal).unwrap_or(130),
    }
}

/// The exit code of a finished child: its own, or 128 + the signal that ended it.
fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// Where a child's output goes besides the copy that is returned.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tee {
    Stdout,
    Stderr,
    Nowhere,
}

/// Run `argv`, teeing its stdout (to stderr when `to_stderr`) and stderr, and return (exit code,
/// combined output). SIGINT/SIGTERM stop it and its whole process group: then
/// `Error::Interrupted`, and the caller records nothing. Not bounded: for commands that are no
/// pin (clean-up checks).
pub fn run_teed(argv: &[String], cwd: &Path, to_stderr: bool) -> Result<(i32, Vec<u8>)> {
    let tee = if to_stderr { Tee::Stderr } else { Tee::Stdout };
    run_child(argv, cwd, tee, &[], false)
}

/// Run a pin, showing nothing (the caller says what of the output matters), bounded by
/// [`pin_bounds`]: past a bound the run is cut off, and [`take_cut_off`] says why.
pub fn run_captured(argv: &[String], cwd: &Path) -> Result<(i32, Vec<u8>)> {
    run_child(argv, cwd, Tee::Nowhere, &[], true)
}

/// Run a pin as [`run_teed`] shows a command, with variables added to its environment, bounded
/// as [`run_captured`] is.
pub fn run_teed_env(
    argv: &[String],
    cwd: &Path,
    to_stderr: bool,
    env: &[(String, String)],
) -> Result<(i32, Vec<u8>)> {
    let tee = if to_stderr { Tee::Stderr } else { Tee::Stdout };
    run_child(argv, cwd, tee, env, true)
}

/// As [`run_captured`], with variables added to the child's environment.
pub fn run_captured_env(
    argv: &[String],
    cwd: &Path,
    env: &[(String, String)],
) -> Result<(i32, Vec<u8>)> {
    run_child(argv, cwd, Tee::Nowhere, env, true)
}

thread_local! {
    /// Why the last pin run of this thread was cut off, until taken.
    static LAST_CUT: std::cell::RefCell<Option<crate::evidence::CutOff>> =
        const { std::cell::RefCell::new(None) };
}

/// Why the last pin run on this thread was cut off (None: it ended by itself), once. The runs
/// return what every command returns (an exit code and its output); a caller that records the
/// run asks this next, however many layers the run went through.
pub fn take_cut_off() -> Option<crate::evidence::CutOff> {
    LAST_CUT.with(|c| c.borrow_mut().take())
}

/// Whether a variable of `goal`'s environment is kept from the commands it runs: every `GOAL_*`
/// (the agent's mark, the goal file, the clock of tests) and `CLAUDE_ENV_FILE` name goal or its
/// caller, and a test that reads them could tell one kind of run from another.
pub fn scrubbed(name: &std::ffi::OsStr) -> bool {
    let name = name.as_encoded_bytes();
    name.starts_with(b"GOAL_") || name == b"CLAUDE_ENV_FILE"
}

/// Make every run of a command alike (verify, red, base, the clean green, recheck, the audit's
/// replays): the same environment as `goal`'s own, less what [`scrubbed`] names, and `PWD` the
/// folder it runs in, as a shell would set it.
fn alike(command: &mut Command, cwd: &Path) {
    for (name, _) in std::env::vars_os() {
        if scrubbed(&name) {
            command.env_remove(&name);
        }
    }
    let pwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    command.env("PWD", pwd);
}

fn run_child(
    argv: &[String],
    cwd: &Path,
    tee: Tee,
    env: &[(String, String)],
    bounded: bool,
) -> Result<(i32, Vec<u8>)> {
    let Some(program) = argv.first() else {
        return Err(Error::usage(
            "no command to run",
            "give the command after `--`: `goal verify -- <test command>`",
        ));
    };
    if bounded {
        LAST_CUT.with(|c| c.borrow_mut().take());
    }
    let mut watch = if bounded {
        Some(bounds::Watch::prepare(argv)?)
    } else {
        None
    };
    let run = ChildRun::start();
    // One pipe for both streams, as `2>&1` gives: the output keeps the order the child wrote it
    // in. With a pipe each, a reader could take cargo's `error: test failed` (stderr) before the
    // rest of libtest's `test result: FAILED. 2 passed; …` line (stdout, written in pieces), and
    // the summary line no longer parsed.
    let (reader, writer) = std::io::pipe().map_err(Error::io(
        "cannot make a pipe for the command's output",
        cwd,
    ))?;
    let writer_err = writer.try_clone().map_err(Error::io(
        "cannot make a pipe for the command's output",
        cwd,
    ))?;
    let mut command = Command::new(program);
    alike(&mut command, cwd);
    command
        .args(&argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err)
        .process_group(0);
    if let Some(w) = &watch {
        w.join_before_exec(&mut command);
    }
    let spawned = process_tree::spawn_own(&mut command);
    // The parent's copies of the write end go, so the reader sees the end when the child's do.
    drop(command);
    let child = spawned.map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    let output = Arc::new(Mutex::new(Vec::new()));
    let (sender, events) = mpsc::channel();
    pump(Box::new(reader), tee, Arc::clone(&output), sender.clone());
    let pid = child.id();
    let supervised = supervise(&run, child, events, sender, 1, watch.as_mut());
    process_tree::reaped(pid);
    let status = match supervised {
        Ok(status) => status,
        Err(signal) => return Err(interrupted_error(signal)),
    };
    let status = status.map_err(|source| Error::Spawn {
        program: program.clone(),
        source,
    })?;
    let mut output = output.lock().map(|o| o.clone()).unwrap_or_default();
    if let Some(w) = watch {
        if let Some(line) = w.output_line() {
            output.extend_from_slice(line.as_bytes());
        }
        LAST_CUT.with(|c| *c.borrow_mut() = w.cut.clone());
    }
    Ok((exit_code(status), output))
}

/// Copy a child's output from `source` into `output` as it comes, passing it through as `tee`
/// says, and say so on `done` when it ends.
fn pump(
    mut source: Box<dyn Read + Send>,
    tee: Tee,
    output: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Sender<Event>,
) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            let n = match source.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if tee != Tee::Nowhere {
                crate::context::pass_through(&buf[..n], tee == Tee::Stderr);
            }
            if let Ok(mut o) = output.lock() {
                o.extend_from_slice(&buf[..n]);
            }
        }
        let _ = done.send(Event::PumpDone);
    });
}

/// Run `command` in its own process group and wait for it, as `Command::status` would, passing
/// SIGINT/SIGTERM on to the group. An interruption is an `Interrupted` I/O error.
pub fn status(command: &mut Command) -> std::io::Result<ExitStatus> {
    let run = ChildRun::start();
    let child = process_tree::spawn_own(command.process_group(0))?;
    let pid = child.id();
    let (sender, events) = mpsc::channel();
    let supervised = supervise(&run, child, events, sender, 0, None);
    process_tree::reaped(pid);
    match supervised {
        Ok(status) => status,
        Err(signal) => Err(std::io::Error::new(
            std::io::ErrorKind::Interrupted,
            format!("stopped by {}", signal_name(signal)),
        )),
    }
}
