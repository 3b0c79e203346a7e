//! What every command gets: the global options, where to print, and the clock.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::error::{Error, Result};

pub struct Ctx {
    /// The directory to work in (`-C DIR`, else the process's).
    pub cwd: PathBuf,
    /// `--file PATH` / `GOAL_FILE`.
    pub file: Option<PathBuf>,
    pub json: bool,
    pub quiet: bool,
    /// Colour on stdout: a TTY and no `NO_COLOR`.
    pub color: bool,
}

impl Ctx {
    /// Print a line of human output (not with `--quiet` or `--json`).
    pub fn say(&self, text: impl AsRef<str>) {
        if !self.quiet && !self.json {
            println!("{}", text.as_ref());
        }
    }

    /// Print the one JSON document of `--json`.
    pub fn emit_json(&self, value: &impl serde::Serialize) -> Result<()> {
        let text = serde_json::to_string_pretty(value)
            .map_err(|e| Error::usage(format!("cannot write JSON: {e}"), ""))?;
        println!("{text}");
        json_written();
        Ok(())
    }

    /// A line for the user on stderr, prefixed `goal:` (shown even with `--json`, not with `--quiet`).
    pub fn note(&self, text: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("goal: {}", text.as_ref());
        }
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
