//! The run's words on the terminal and in its events that more than one step says: its start,
//! its spend.

use std::path::Path;

use serde_json::json;

use super::agents::AgentSpec;
use crate::runner::display::Display;
use crate::usage::Usage;

/// The usage figures of events and the status line (each null when not reported).
pub(super) fn usage_json(u: &Usage) -> serde_json::Value {
    json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "cost_usd": u.cost_usd})
}

/// ` · $0.1234 · 3400 tokens`: the spend so far, as far as it was reported (empty when nothing was).
pub(super) fn spend_text(u: &Usage) -> String {
    let mut text = String::new();
    if let Some(cost) = u.cost_usd {
        text.push_str(&format!(" · ${cost:.4}"));
    }
    if let Some(tokens) = u.tokens() {
        text.push_str(&format!(" · {tokens} tokens"));
    }
    text
}

/// The `start` event: the run, its agents (and which are unverified), the goal's state, where
/// the turn logs go.
pub(super) fn announce_start(
    display: &Display,
    run_id: &str,
    agents: &[AgentSpec],
    unverified: &[&str],
    run_dir: &Path,
    summary: &str,
) {
    let verified = agents[0].verified;
    display.event(
        "start",
        json!({"run": run_id, "agent": agents[0].name, "agents": agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), "verified": verified.is_some() && unverified.is_empty(), "verified_version": verified, "unverified": unverified, "log_dir": run_dir.display().to_string()}),
        &format!(
            "run {run_id} with {}{} ({summary}); turn logs in {}",
            agents.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", then "),
            match unverified {
                [] => String::new(),
                [_] if agents.len() == 1 => " (unverified)".to_string(),
                names => format!(" ({} unverified)", names.join(", ")),
            },
            run_dir.display()
        ),
    );
}
