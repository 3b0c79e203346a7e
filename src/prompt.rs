//! Questions with a timed default: never waits without a TTY, never waits forever with one.

use std::io::{BufRead, Write};
use std::sync::mpsc;
use std::time::Duration;

/// The seed's timeout for every question (GOAL_PROMPT_TIMEOUT, in seconds, changes it: tests use
/// a fraction of a second).
pub fn timeout() -> Duration {
    std::env::var("GOAL_PROMPT_TIMEOUT")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(Duration::from_secs(10), Duration::from_secs_f64)
}

/// Ask `question` on stderr with numbered `options`; the answer is read from stdin. Returns the
/// index chosen, or `default` on timeout, end of input or an answer that names no option.
pub fn choose(question: &str, options: &[&str], default: usize, timeout: Duration) -> usize {
    let mut stderr = std::io::stderr();
    let _ = writeln!(stderr, "{question}");
    for (i, option) in options.iter().enumerate() {
        let mark = if i == default { " (default)" } else { "" };
        let _ = writeln!(stderr, "  {}) {option}{mark}", i + 1);
    }
    let _ = write!(
        stderr,
        "choose 1-{} [{:.0}s → {}]: ",
        options.len(),
        timeout.as_secs_f64().ceil(),
        default + 1
    );
    let _ = stderr.flush();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        let _ = tx.send(line);
    });
    let answer = rx.recv_timeout(timeout).ok();
    let choice = answer
        .as_deref()
        .map(str::trim)
        .and_then(|a| a.parse::<usize>().ok())
        .filter(|n| (1..=options.len()).contains(n))
        .map(|n| n - 1);
    match choice {
        Some(c) => c,
        None => {
            let _ = writeln!(stderr, "\n→ {}", options[default]);
            default
        }
    }
}
