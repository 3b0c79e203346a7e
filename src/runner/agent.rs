//! One agent turn as a process: started in its own process group in the worktree root, the prompt
//! on stdin (and where the command line asks for it), every byte of output copied to the turn log,
//! killed (the whole group) on an idle or turn timeout or on request, and whatever of its group
//! is left when it ends killed too, so no process outlives its turn.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::machine::TurnEnd;

/// How much of a turn's output is kept in memory (the end of it).
const MAX_KEPT: usize = 4 << 20;

/// Everything a turn needs to start.
pub struct Turn<'a> {
    pub argv: &'a [String],
    /// The prompt on stdin (None: stdin is empty, for a CLI that takes it as an argument and
    /// would read stdin as more input).
    pub stdin: Option<&'a str>,
    pub cwd: &'a Path,
    pub env: Vec<(String, String)>,
    pub log: PathBuf,
    pub idle_timeout: Option<Duration>,
    pub turn_timeout: Option<Duration>,
}

/// How a turn went.
pub struct Ended {
    pub end: TurnEnd,
    pub output: String,
}

/// Interrupts (SIGINT/SIGTERM) received since the run started, counted by a signal thread.
pub static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// Count SIGINT/SIGTERM in [`INTERRUPTS`] instead of letting them end the process.
pub fn count_interrupts() {
    crate::child::hold_signals();
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
    ]) {
        std::thread::spawn(move || {
            for _ in signals.forever() {
                INTERRUPTS.fetch_add(1, Ordering::SeqCst);
            }
        });
    }
}

enum Note {
    /// A chunk of the agent's stdout (false) or stderr (true).
    Output(Vec<u8>, bool),
    Closed,
    Exited(std::io::Result<std::process::ExitStatus>),
}

fn kill_group(group: Option<Pid>, signal: Signal) {
    if let Some(g) = group {
        let _ = rustix::process::kill_process_group(g, signal);
    }
}

/// Run one turn. `on_tick` is called about every 100 ms with the number of interrupts so far and
/// returns true when the agent must be killed now (a second Ctrl-C).
pub fn run_turn(turn: &Turn, on_tick: impl FnMut() -> bool) -> Ended {
    let Some(program) = turn.argv.first() else {
        return not_started("no agent command".into());
    };
    let mut streams = Streams::new(std::fs::File::create(&turn.log).ok());
    let mut child = match agent_command(turn, program).spawn() {
        Ok(c) => c,
        Err(e) => {
            let why = if e.kind() == std::io::ErrorKind::NotFound {
                format!("cannot run `{program}`: not found (is it installed and on PATH?)")
            } else {
                format!("cannot run `{program}`: {e}")
            };
            streams.log_line(&format!("goal run: {why}"));
            return not_started(why);
        }
    };
    // An agent that exits without reading its prompt closes the pipe: writing to it must not end
    // `goal run` (SIGPIPE), only that write.
    let _quiet_pipe = crate::child::QuietPipe::new();
    let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
    let writer = write_prompt(&mut child, turn.stdin);
    let (notes, pumps) = watch_child(child);
    let (killed, status) = follow(turn, &notes, pumps, group, &mut streams, on_tick);
    // No survivor: whatever is left of the agent's process group goes with the turn (SIGTERM,
    // SIGKILL after the grace period, and gone before the next turn starts).
    crate::child::end_group(group, Signal::TERM, crate::child::grace(), || false);
    // With every reader gone, the prompt's writer ends (EPIPE at worst) while the closed-pipe
    // guard still holds.
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let end = turn_end(program, killed, status);
    let output = streams.finish(&end);
    Ended { end, output }
}

fn not_started(why: String) -> Ended {
    Ended {
        end: TurnEnd::NotStarted(why),
        output: String::new(),
    }
}

/// The agent's command: in the worktree root (and PWD), its own process group, piped output.
fn agent_command(turn: &Turn, program: &str) -> Command {
    let mut command = Command::new(program);
    command
        .args(&turn.argv[1..])
        .current_dir(turn.cwd)
        // Some agents (opencode) take their folder from PWD, not the working directory: started
        // from a subfolder, or from a tool that does not update PWD, they would work there.
        .env("PWD", turn.cwd)
        .stdin(if turn.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for (k, v) in &turn.env {
        command.env(k, v);
    }
    command
}

/// The prompt written to the agent's stdin from a thread of its own.
fn write_prompt(
    child: &mut std::process::Child,
    prompt: Option<&str>,
) -> Option<std::thread::JoinHandle<()>> {
    let (mut stdin, prompt) = (child.stdin.take()?, prompt?.as_bytes().to_vec());
    Some(std::thread::spawn(move || {
        // An agent that does not read stdin closes it: that is fine.
        let _ = stdin.write_all(&prompt);
    }))
}

/// Threads that read the agent's stdout and stderr and wait for it, each sending notes; the
/// notes and how many output streams are open.
fn watch_child(mut child: std::process::Child) -> (mpsc::Receiver<Note>, usize) {
    let (sender, notes) = mpsc::channel::<Note>();
    let mut pumps = 0;
    if let Some(out) = child.stdout.take() {
        pump(Box::new(out), false, sender.clone());
        pumps += 1;
    }
    if let Some(err) = child.stderr.take() {
        pump(Box::new(err), true, sender.clone());
        pumps += 1;
    }
    // The waiter owns the child; killing goes through the process group, never through it.
    std::thread::spawn(move || {
        let _ = sender.send(Note::Exited(child.wait()));
    });
    (notes, pumps)
}

/// A thread copying one output stream into notes until it closes.
fn pump(mut source: Box<dyn Read + Send>, is_err: bool, sender: mpsc::Sender<Note>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match source.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if sender
                        .send(Note::Output(buf[..n].to_vec(), is_err))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
        let _ = sender.send(Note::Closed);
    });
}

/// The agent's output: stdout and stderr kept apart (their tails in memory), and the log given
/// whole lines, so that one stream never splices into the middle of the other's line (the turn's
/// summary is stdout's last line).
struct Streams {
    log: Option<std::fs::File>,
    kept: [Vec<u8>; 2],
    partial: [Vec<u8>; 2],
}

impl Streams {
    fn new(log: Option<std::fs::File>) -> Streams {
        Streams {
            log,
            kept: [Vec::new(), Vec::new()],
            partial: [Vec::new(), Vec::new()],
        }
    }

    fn log_line(&mut self, line: &str) {
        if let Some(l) = self.log.as_mut() {
            let _ = writeln!(l, "{line}");
        }
    }

    /// A chunk of stdout (`is_err` false) or stderr.
    fn take(&mut self, bytes: &[u8], is_err: bool) {
        let k = usize::from(is_err);
        self.partial[k].extend_from_slice(bytes);
        if let Some(end) = self.partial[k].iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.partial[k].drain(..=end).collect();
            if let Some(l) = self.log.as_mut() {
                let _ = l.write_all(&lines);
            }
        }
        self.kept[k].extend_from_slice(bytes);
        // Keep the tail only: the log file has it all, the verdict reads the end.
        if self.kept[k].len() > MAX_KEPT {
            let excess = self.kept[k].len() - MAX_KEPT;
            self.kept[k].drain(..excess);
        }
    }

    /// The log finished with what is left and how the turn ended; the output, stderr first and
    /// stdout last (error patterns read both, the summary is stdout's last line).
    fn finish(mut self, end: &TurnEnd) -> String {
        if let Some(l) = self.log.as_mut() {
            for rest in &self.partial {
                if !rest.is_empty() {
                    let _ = l.write_all(rest);
                    let _ = l.write_all(b"\n");
                }
            }
            let _ = writeln!(l, "\n[goal run: turn ended: {end:?}]");
        }
        let [stdout, stderr] = self.kept;
        let mut output = String::from_utf8_lossy(&stderr).into_owned();
        if !output.is_empty() && !output.ends_with('\n') {
            output.push('\n');
        }
        output.push_str(&String::from_utf8_lossy(&stdout));
        output
    }
}

/// Follow the turn until the agent exited and its output closed (or shortly after it exited,
/// when something it started still holds the output open), killing its group on a timeout or
/// when `on_tick` asks. Why it was killed, and its exit status.
fn follow(
    turn: &Turn,
    notes: &mpsc::Receiver<Note>,
    mut pumps: usize,
    group: Option<Pid>,
    streams: &mut Streams,
    mut on_tick: impl FnMut() -> bool,
) -> (
    Option<TurnEnd>,
    Option<std::io::Result<std::process::ExitStatus>>,
) {
    let started = Instant::now();
    let mut last_output = Instant::now();
    let mut status = None;
    let mut killed: Option<TurnEnd> = None;
    let mut exited_at: Option<Instant> = None;
    let mut last_tick = Instant::now();
    loop {
        if status.is_some() && pumps == 0 {
            break;
        }
        if exited_at.is_some_and(|at| at.elapsed() > Duration::from_millis(300)) {
            break;
        }
        match notes.recv_timeout(Duration::from_millis(20)) {
            Ok(Note::Output(bytes, is_err)) => {
                last_output = Instant::now();
                streams.take(&bytes, is_err);
            }
            Ok(Note::Closed) => pumps -= 1,
            Ok(Note::Exited(s)) => {
                status = Some(s);
                exited_at = Some(Instant::now());
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if status.is_some() || killed.is_some() {
            continue;
        }
        let reason = if turn
            .idle_timeout
            .is_some_and(|t| last_output.elapsed() >= t)
        {
            Some(TurnEnd::IdleTimeout)
        } else if turn.turn_timeout.is_some_and(|t| started.elapsed() >= t) {
            Some(TurnEnd::TurnTimeout)
        } else if last_tick.elapsed() >= Duration::from_millis(50) {
            last_tick = Instant::now();
            on_tick().then_some(TurnEnd::Killed)
        } else {
            None
        };
        if let Some(reason) = reason {
            kill_group(group, Signal::KILL);
            killed = Some(reason);
        }
    }
    (killed, status)
}

/// How the turn ended: killed for a reason, its exit code (128 + a signal), or not waited for.
fn turn_end(
    program: &str,
    killed: Option<TurnEnd>,
    status: Option<std::io::Result<std::process::ExitStatus>>,
) -> TurnEnd {
    match (killed, status) {
        (Some(reason), _) => reason,
        (None, Some(Ok(s))) => {
            TurnEnd::Exited(s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)))
        }
        (None, Some(Err(e))) => TurnEnd::NotStarted(format!("cannot wait for `{program}`: {e}")),
        (None, None) => TurnEnd::Exited(-1),
    }
}
