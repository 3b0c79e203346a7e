//! What people see during `goal run`: a live status line on a terminal (indicatif), one plain
//! line per event otherwise, or one JSON object per event line with `--json`.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};

enum Mode {
    Json,
    Live(ProgressBar),
    Plain,
    Quiet,
}

pub struct Display {
    mode: Mode,
    started: Instant,
}

impl Display {
    pub fn new(json: bool) -> Display {
        let mode = if json {
            Mode::Json
        } else if crate::context::quiet() {
            Mode::Quiet
        } else if crate::context::stderr_is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template("{spinner} goal run · {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            Mode::Live(bar)
        } else {
            Mode::Plain
        };
        Display {
            mode,
            started: Instant::now(),
        }
    }

    /// Elapsed time of the run, `1m05s`.
    pub fn elapsed(&self) -> String {
        let s = self.started.elapsed().as_secs();
        if s >= 3600 {
            format!("{}h{:02}m", s / 3600, s % 3600 / 60)
        } else {
            format!("{}m{:02}s", s / 60, s % 60)
        }
    }

    /// One event: a JSON line (`event` plus `fields`), or `human` as a line.
    pub fn event(&self, event: &str, fields: Value, human: &str) {
        match &self.mode {
            Mode::Json => {
                let mut object = json!({ "event": event });
                if let (Some(o), Value::Object(f)) = (object.as_object_mut(), fields) {
                    o.extend(f);
                }
                crate::context::print_line(object.to_string());
                crate::context::json_written();
            }
            Mode::Live(bar) => bar.println(format!("goal run: {human}")),
            Mode::Plain => {
                crate::context::print_line(format!("goal run: {human}"));
            }
            Mode::Quiet => {}
        }
    }

    /// The live status line (a terminal only).
    pub fn status(&self, text: &str) {
        if let Mode::Live(bar) = &self.mode {
            bar.set_message(format!("{text} · {}", self.elapsed()));
        }
    }

    /// Run `f` with the status line out of the way (it prints to the terminal itself).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.mode {
            Mode::Live(bar) => bar.suspend(f),
            _ => f(),
        }
    }

    pub fn finish(&self) {
        if let Mode::Live(bar) = &self.mode {
            bar.finish_and_clear();
        }
    }
}
