//! What every command gets: the global options, where to print, and the clock.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Result};

pub struct Ctx {
    /// The directory to work in (`-C DIR`, else the process's).
    pub cwd: PathBuf,
    /// `--file PATH` / `GOAL_FILE`.
    pub file: Option<PathBuf>,
    pub json: bool,
    /// Colour on stdout: a TTY and no `NO_COLOR`.
    pub color: bool,
}

impl Ctx {
    /// Print a line of human output (not with `--quiet` or `--json`).
    pub fn say(&self, text: impl AsRef<str>) {
        if !quiet() && !self.json {
            println!("{}", text.as_ref());
        }
    }

    /// Print the one JSON document of `--json`.
    pub fn emit_json(&self, value: &impl serde::Serialize) -> Result<()> {
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| Error::internal("write the JSON document", e))?;
        println!("{text}");
        json_written();
        Ok(())
    }

    /// A line for the user on stderr, prefixed `goal:` (shown even with `--json`, not with `--quiet`).
    pub fn note(&self, text: impl AsRef<str>) {
        note(text);
    }

    /// `--quiet` (or a command that asked for silence while it works).
    pub fn quiet(&self) -> bool {
        quiet()
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }

    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Whether a person can answer a question on this terminal.
    pub fn interactive(&self) -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// Now, as RFC 3339 UTC with seconds (`GOAL_NOW` pins it, for reproducible files and tests).
pub fn now_rfc3339() -> String {
    if let Ok(now) = std::env::var("GOAL_NOW")
        && chrono::DateTime::parse_from_rfc3339(&now).is_ok()
    {
        return now;
    }
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

pub fn color_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stdout().is_terminal()
}

// How much goal says lives here, as cargo's `Shell` holds its verbosity: `--quiet` is set once
// when the command line is read, and a command that runs an operation for its own ends (a race's
// judge, the MCP server's approval, a hook) hushes it while that runs. No function below takes a
// quiet flag (tests/layers.rs checks it).

static QUIET: AtomicBool = AtomicBool::new(false);
/// How many hushes are open, in any thread: an operation's worker threads are hushed with it.
static HUSHES: AtomicUsize = AtomicUsize::new(0);

/// Set `--quiet` for the process (once, from the command line).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::SeqCst);
}

/// Whether progress lines are left out: `--quiet`, or a hush is open.
pub fn quiet() -> bool {
    QUIET.load(Ordering::SeqCst) || HUSHES.load(Ordering::SeqCst) > 0
}

/// Progress lines are left out while this lives (a command running an operation for its own ends,
/// or `--json` where the operation's progress would only be noise).
#[must_use = "the hush ends when this is dropped"]
pub struct Hush(());

impl Drop for Hush {
    fn drop(&mut self) {
        HUSHES.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Leave progress lines out until the returned guard is dropped.
pub fn hush() -> Hush {
    HUSHES.fetch_add(1, Ordering::SeqCst);
    Hush(())
}

/// A hush only when `wanted`.
pub fn hush_if(wanted: bool) -> Option<Hush> {
    wanted.then(hush)
}

// The layers below the commands print only through these (tests/layers.rs checks it): a progress
// line or a warning on stderr, a line of an event stream, a child's output passed through, a
// question's prompt.

/// A line for the user on stderr, prefixed `goal:` (shown even with `--json`, not when quiet).
pub fn note(text: impl AsRef<str>) {
    status_line(format!("goal: {}", text.as_ref()));
}

/// A progress line on stderr, as it is (not when quiet).
pub fn status_line(text: impl AsRef<str>) {
    if !quiet() {
        eprintln!("{}", text.as_ref());
    }
}

/// A line on stderr shown even when quiet: a warning the user must see, an escalation, an answer
/// to a question.
pub fn warn_line(text: impl AsRef<str>) {
    eprintln!("{}", text.as_ref());
}

/// A line on stdout, flushed at once (a line of `goal run`'s event stream or its plain report).
pub fn print_line(text: impl AsRef<str>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", text.as_ref());
    let _ = out.flush();
}

/// Bytes of a child's output passed through as they come: to stderr, or to stdout, flushed.
pub fn pass_through(bytes: &[u8], to_stderr: bool) {
    use std::io::Write;
    if to_stderr {
        let _ = std::io::stderr().write_all(bytes);
    } else {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(bytes);
        let _ = out.flush();
    }
}

/// Text on stderr with no newline after it (a question waiting for its answer), flushed.
pub fn eprint_text(text: impl AsRef<str>) {
    use std::io::Write;
    let mut err = std::io::stderr();
    let _ = write!(err, "{}", text.as_ref());
    let _ = err.flush();
}

/// Whether stderr is a terminal.
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// A second descriptor of stderr, for a child whose stdout should go where goal's messages go.
pub fn stderr_descriptor() -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::AsFd;
    std::io::stderr().as_fd().try_clone_to_owned().ok()
}

/// Set once the command has put JSON on stdout: an error after that is not a second document.
static JSON_WRITTEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Note that JSON went to stdout (the document, or a line of `goal run`'s event stream).
pub fn json_written() {
    JSON_WRITTEN.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether this process has put JSON on stdout.
pub fn wrote_json() -> bool {
    JSON_WRITTEN.load(std::sync::atomic::Ordering::SeqCst)
}

/// `GOAL_TRACE=1`: one line on stderr for each step a span covers, with its wall time
/// (`goal: trace: <step>: <ms> ms`), printed when the span ends — to see where a command's time
/// goes (`goal done`'s runs, worktree checkouts, git reads). Nothing is printed otherwise.
pub struct Span {
    what: String,
    started: std::time::Instant,
}

/// A span named `what`, when `GOAL_TRACE` is set to something other than `0` or empty.
pub fn span(what: impl Into<String>) -> Option<Span> {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let on =
        *ON.get_or_init(|| std::env::var("GOAL_TRACE").is_ok_and(|v| !v.is_empty() && v != "0"));
    on.then(|| Span {
        what: what.into(),
        started: std::time::Instant::now(),
    })
}

impl Drop for Span {
    fn drop(&mut self) {
        eprintln!(
            "goal: trace: {}: {} ms",
            self.what,
            self.started.elapsed().as_millis()
        );
    }
}
