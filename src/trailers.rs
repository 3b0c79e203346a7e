//! The `Goal-*` trailers of goal commits: writing them and reading them back from history.

use crate::goal_file::{GoalFile, one_line};
use crate::repo::CommitInfo;

/// What a goal commit did (the `Goal-Action` trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    Init,
    Iterate,
    Criteria,
    Block,
    Resume,
    Escalate,
    Complete,
    Done,
    Abandon,
    Restore,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Init => "init",
            Action::Iterate => "iterate",
            Action::Criteria => "criteria",
            Action::Block => "block",
            Action::Resume => "resume",
            Action::Escalate => "escalate",
            Action::Complete => "complete",
            Action::Done => "done",
            Action::Abandon => "abandon",
            Action::Restore => "restore",
        }
    }

    fn parse(text: &str) -> Option<Action> {
        Some(match text {
            "init" => Action::Init,
            "iterate" => Action::Iterate,
            "criteria" => Action::Criteria,
            "block" => Action::Block,
            "resume" => Action::Resume,
            "escalate" => Action::Escalate,
            "complete" => Action::Complete,
            "done" => Action::Done,
            "abandon" => Action::Abandon,
            "restore" => Action::Restore,
            _ => return None,
        })
    }
}

/// The facts a goal commit records in its trailers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalTrailers {
    pub action: Option<Action>,
    pub iteration: u64,
    /// in-progress, blocked, complete or abandoned.
    pub status: String,
    pub passing: usize,
    pub total: usize,
    pub evidence: Vec<String>,
    pub material_change: Option<String>,
    /// The `goal run` that made the commit (`Goal-Run`).
    pub run: Option<String>,
    /// The user's git hooks were skipped for this commit (`--no-verify`): `Goal-Hooks: skipped`.
    pub hooks_skipped: bool,
    /// Confirmed weakening findings (`Goal-Tests-Weakened: <kind> <file>:<line> <test>`, one each).
    pub tests_weakened: Vec<String>,
    /// A goal whose criteria are all guards, confirmed (`Goal-Guards-Only: confirmed`).
    pub guards_only: bool,
    /// The stagnation verdict an iteration commit records (`Goal-Verdict: progress|stagnant|
    /// escalated`): a cache for `goal fleet`, never read back by the verdict itself.
    pub verdict: Option<String>,
}

impl GoalTrailers {
    /// The trailers for a commit of `goal` in its new state.
    pub fn of(goal: &GoalFile, action: Action) -> GoalTrailers {
        GoalTrailers {
            action: Some(action),
            iteration: goal.iteration,
            status: goal.status.as_str().to_string(),
            passing: goal.passing_count(),
            total: goal.criteria.len(),
            evidence: Vec::new(),
            material_change: None,
            run: None,
            hooks_skipped: false,
            tests_weakened: Vec::new(),
            guards_only: false,
            verdict: None,
        }
    }

    /// Read the trailers of a commit; None when it is not a goal commit.
    pub fn read(commit: &CommitInfo) -> Option<GoalTrailers> {
        let iteration = commit.trailer("Goal-Iteration")?.trim().parse().ok()?;
        let status = commit.trailer("Goal-Status")?.trim().to_string();
        let (passing, total) = commit
            .trailer("Goal-Passing")
            .and_then(|p| p.split_once('/'))
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
            .unwrap_or((0, 0));
        Some(GoalTrailers {
            action: commit
                .trailer("Goal-Action")
                .and_then(|a| Action::parse(a.trim())),
            iteration,
            status,
            passing,
            total,
            evidence: commit
                .trailer("Goal-Evidence")
                .map(|e| {
                    e.split([',', ' '])
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            material_change: commit.trailer("Goal-Material-Change").map(str::to_string),
            run: commit.trailer("Goal-Run").map(|r| r.trim().to_string()),
            hooks_skipped: commit
                .trailer("Goal-Hooks")
                .is_some_and(|h| h.trim() == "skipped"),
            tests_weakened: commit
                .trailers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Tests-Weakened"))
                .map(|(_, v)| v.trim().to_string())
                .collect(),
            guards_only: commit
                .trailer("Goal-Guards-Only")
                .is_some_and(|g| g.trim() == "confirmed"),
            verdict: commit.trailer("Goal-Verdict").map(|v| v.trim().to_string()),
        })
    }

    /// A full commit message: `goal: <subject>`, an optional body, then the trailers.
    pub fn message(&self, subject: &str, body: &[String]) -> String {
        let mut text = format!("goal: {}\n", one_line(subject));
        let body: Vec<String> = body
            .iter()
            .map(|l| l.trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        if !body.is_empty() {
            text.push('\n');
            for line in body {
                text.push_str(&format!("{line}\n"));
            }
        }
        text.push('\n');
        text.push_str(&format!("Goal-Iteration: {}\n", self.iteration));
        text.push_str(&format!("Goal-Status: {}\n", self.status));
        text.push_str(&format!("Goal-Passing: {}/{}\n", self.passing, self.total));
        if let Some(action) = self.action {
            text.push_str(&format!("Goal-Action: {}\n", action.as_str()));
        }
        if !self.evidence.is_empty() {
            text.push_str(&format!("Goal-Evidence: {}\n", self.evidence.join(", ")));
        }
        if let Some(change) = &self.material_change {
            text.push_str(&format!("Goal-Material-Change: {}\n", one_line(change)));
        }
        if let Some(run) = &self.run {
            text.push_str(&format!("Goal-Run: {}\n", one_line(run)));
        }
        if let Some(verdict) = &self.verdict {
            text.push_str(&format!("Goal-Verdict: {}\n", one_line(verdict)));
        }
        if self.hooks_skipped {
            text.push_str("Goal-Hooks: skipped\n");
        }
        for finding in &self.tests_weakened {
            text.push_str(&format!("Goal-Tests-Weakened: {}\n", one_line(finding)));
        }
        if self.guards_only {
            text.push_str("Goal-Guards-Only: confirmed\n");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::parse_trailers;

    #[test]
    fn message_round_trip() {
        let t = GoalTrailers {
            action: Some(Action::Criteria),
            iteration: 4,
            status: "in-progress".into(),
            passing: 1,
            total: 3,
            evidence: vec!["e1".into(), "e2".into()],
            material_change: Some("removed criterion 2 \"x\"".into()),
            run: Some("20260101T000000Z-1a2b".into()),
            hooks_skipped: true,
            tests_weakened: vec![
                "skip-added tests/test_calc.py:3 test_add".into(),
                "test-removed src/lib.rs:40 tests::adds".into(),
            ],
            guards_only: true,
            verdict: Some("stagnant".into()),
        };
        let message = t.message("remove criterion 2", &["Key: looks like a trailer".into()]);
        let info = CommitInfo {
            id: crate::repo::Oid::ZERO_SHA1,
            tree: crate::repo::Oid::ZERO_SHA1,
            time: 0,
            trailers: parse_trailers(&message),
            message: message.clone(),
        };
        assert_eq!(GoalTrailers::read(&info), Some(t));
        assert!(
            message.ends_with(
                "Goal-Hooks: skipped\nGoal-Tests-Weakened: skip-added tests/test_calc.py:3 test_add\nGoal-Tests-Weakened: test-removed src/lib.rs:40 tests::adds\nGoal-Guards-Only: confirmed\n"
            ),
            "{message}"
        );
        assert!(message.starts_with(
            "goal: remove criterion 2\n\nKey: looks like a trailer\n\nGoal-Iteration: 4\n"
        ));
    }
}
