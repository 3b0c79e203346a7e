//! Questions with a timed default: never waits without a TTY, never waits forever with one.

use std::io::BufRead;
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

/// Ask `question` on stderr with numbered `options`; the answer is read from stdin. An answer is
/// an option's number, its first word ("continue") or that word's first letter ("c"). Returns the
/// index chosen, or `default` on timeout, end of input or an answer that names no option.
pub fn choose(question: &str, options: &[&str], default: usize, timeout: Duration) -> usize {
    choose_answered(question, options, default, timeout).unwrap_or(default)
}

/// As [`choose`], but None when nobody answered (the timeout, end of input, an answer that names
/// no option): the default was taken, not chosen.
pub fn choose_answered(
    question: &str,
    options: &[&str],
    default: usize,
    timeout: Duration,
) -> Option<usize> {
    let mut prompt = format!("{question}\n");
    for (i, option) in options.iter().enumerate() {
        let mark = if i == default { " (default)" } else { "" };
        prompt.push_str(&format!("  {}) {option}{mark}\n", i + 1));
    }
    let words: Vec<&str> = options.iter().map(|o| first_word(o)).collect();
    prompt.push_str(&format!(
        "choose 1-{} or {} [{:.0}s → {}]: ",
        options.len(),
        words.join(" / "),
        timeout.as_secs_f64().ceil(),
        words[default]
    ));
    crate::context::eprint_text(prompt);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        let _ = tx.send(line);
    });
    let answer = rx.recv_timeout(timeout).ok();
    let choice = answer.as_deref().and_then(|a| answer_index(a, options));
    if choice.is_none() {
        crate::context::warn_line(format!("\n→ {}", options[default]));
    }
    choice
}

fn first_word(option: &str) -> &str {
    option.split_whitespace().next().unwrap_or(option)
}

/// The option an answer names: its number, its first word, or that word's first letter when no
/// other option's word starts with the same letter. Case and surrounding blanks do not matter.
pub fn answer_index(answer: &str, options: &[&str]) -> Option<usize> {
    let answer = answer.trim().to_lowercase();
    if answer.is_empty() {
        return None;
    }
    if let Ok(n) = answer.parse::<usize>() {
        return (1..=options.len()).contains(&n).then(|| n - 1);
    }
    let words: Vec<String> = options
        .iter()
        .map(|o| first_word(o).to_lowercase())
        .collect();
    if let Some(i) = words.iter().position(|w| *w == answer) {
        return Some(i);
    }
    let mut chars = answer.chars();
    let (Some(letter), None) = (chars.next(), chars.next()) else {
        return None;
    };
    let mut matching = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.starts_with(letter));
    match (matching.next(), matching.next()) {
        (Some((i, _)), None) => Some(i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::answer_index;

    #[test]
    fn answers_by_number_word_or_letter() {
        let options = [
            "continue the current goal",
            "replace it with the new goal",
            "abandon the current goal",
        ];
        let cases: &[(&str, Option<usize>)] = &[
            ("1", Some(0)),
            ("2\n", Some(1)),
            (" 3 ", Some(2)),
            ("4", None),
            ("0", None),
            ("continue", Some(0)),
            ("Replace\n", Some(1)),
            ("ABANDON", Some(2)),
            ("c", Some(0)),
            ("r", Some(1)),
            ("a", Some(2)),
            ("R", Some(1)),
            ("", None),
            ("x", None),
            ("cont", None),
            ("yes", None),
        ];
        for (answer, want) in cases {
            assert_eq!(answer_index(answer, &options), *want, "{answer:?}");
        }
        // A letter two options start with names neither.
        assert_eq!(answer_index("c", &["cancel", "continue"]), None);
    }
}
