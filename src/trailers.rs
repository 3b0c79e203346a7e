//! The `Goal-*` trailers of goal commits: writing them and reading them back from history.

use crate::goal_file::{GoalFile, one_line};
use crate::repo::CommitInfo;
use crate::usage::Usage;

/// What a goal commit did (the `Goal-Action` trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum GoalAction {
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

impl GoalAction {
    pub fn as_str(self) -> &'static str {
        match self {
            GoalAction::Init => "init",
            GoalAction::Iterate => "iterate",
            GoalAction::Criteria => "criteria",
            GoalAction::Block => "block",
            GoalAction::Resume => "resume",
            GoalAction::Escalate => "escalate",
            GoalAction::Complete => "complete",
            GoalAction::Done => "done",
            GoalAction::Abandon => "abandon",
            GoalAction::Restore => "restore",
        }
    }

    fn parse(text: &str) -> Option<GoalAction> {
        Some(match text {
            "init" => GoalAction::Init,
            "iterate" => GoalAction::Iterate,
            "criteria" => GoalAction::Criteria,
            "block" => GoalAction::Block,
            "resume" => GoalAction::Resume,
            "escalate" => GoalAction::Escalate,
            "complete" => GoalAction::Complete,
            "done" => GoalAction::Done,
            "abandon" => GoalAction::Abandon,
            "restore" => GoalAction::Restore,
            _ => return None,
        })
    }
}

/// The facts a goal commit records in its trailers.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalTrailers {
    pub action: Option<GoalAction>,
    pub iteration: u64,
    /// in-progress, blocked, complete or abandoned.
    pub status: String,
    pub passing: usize,
    pub total: usize,
    pub evidence: Vec<String>,
    pub material_change: Option<String>,
    /// The `goal run` that made the commit: the run id of `Goal-Run: <run id> agent=<name>`.
    pub run: Option<String>,
    /// The agent of that run that made the commit: the `agent=` of `Goal-Run`.
    pub run_agent: Option<String>,
    /// What the run's agent CLI reported using for this commit's turns (`Goal-Usage: input=N
    /// output=N cost=USD`, each part only when reported).
    pub usage: Option<Usage>,
    /// The user's git hooks were skipped for this commit (`--no-verify`): `Goal-Hooks: skipped`.
    pub hooks_skipped: bool,
    /// Confirmed weakening findings (`Goal-Tests-Weakened: <kind> <file>:<line> <test>`, one each).
    pub tests_weakened: Vec<String>,
    /// What the completion's exams showed without refusing (`Goal-Tests-Changed: behavior-changed
    /// <test> (criterion N, record R)`, one each): a rewritten expectation, a flaky or
    /// inconclusive run.
    pub tests_changed: Vec<String>,
    /// A goal whose criteria are all guards, confirmed (`Goal-Guards-Only: confirmed`).
    pub guards_only: bool,
    /// What the mutation gate refused, confirmed by a person (`Goal-Mutants-Confirmed: <why>`,
    /// one each).
    pub mutants_confirmed: Vec<String>,
    /// The stagnation verdict an iteration commit records (`Goal-Verdict: progress|stagnant|
    /// escalated`): a cache for `goal fleet`, never read back by the verdict itself.
    pub verdict: Option<String>,
    /// The budget a `goal run` was given, on the run's first commit (`Goal-Budget: cost=USD
    /// tokens=N iterations=N`, each part only when given).
    pub budget: Option<String>,
    /// The commit the goal started from, on its init commit (`Goal-Base: <commit>`).
    pub base: Option<String>,
    /// The agent whose command made the commit (`Assisted-by: <agent>`, the Linux kernel's
    /// convention for coding assistants): the commit was made under an agent's mark. goal never
    /// writes `Signed-off-by` for an agent.
    pub assisted_by: Option<String>,
}

impl GoalTrailers {
    /// The trailers for a commit of `goal` in its new state.
    pub fn of(goal: &GoalFile, action: GoalAction) -> GoalTrailers {
        GoalTrailers {
            action: Some(action),
            iteration: goal.iteration,
            status: goal.status.as_str().to_string(),
            passing: goal.passing_count(),
            total: goal.criteria.len(),
            evidence: Vec::new(),
            material_change: None,
            run: None,
            run_agent: None,
            usage: None,
            hooks_skipped: false,
            tests_weakened: Vec::new(),
            tests_changed: Vec::new(),
            guards_only: false,
            mutants_confirmed: Vec::new(),
            verdict: None,
            budget: None,
            base: None,
            assisted_by: None,
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
        let (run, run_agent) = commit
            .trailer("Goal-Run")
            .map(parse_run)
            .unwrap_or_default();
        Some(GoalTrailers {
            action: commit
                .trailer("Goal-Action")
                .and_then(|a| GoalAction::parse(a.trim())),
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
            run,
            run_agent,
            usage: commit.trailer("Goal-Usage").and_then(parse_usage),
            hooks_skipped: commit
                .trailer("Goal-Hooks")
                .is_some_and(|h| h.trim() == "skipped"),
            tests_weakened: commit
                .trailers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Tests-Weakened"))
                .map(|(_, v)| v.trim().to_string())
                .collect(),
            tests_changed: commit
                .trailers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Tests-Changed"))
                .map(|(_, v)| v.trim().to_string())
                .collect(),
            guards_only: commit
                .trailer("Goal-Guards-Only")
                .is_some_and(|g| g.trim() == "confirmed"),
            mutants_confirmed: commit
                .trailers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Mutants-Confirmed"))
                .map(|(_, v)| v.trim().to_string())
                .collect(),
            verdict: commit.trailer("Goal-Verdict").map(|v| v.trim().to_string()),
            budget: commit.trailer("Goal-Budget").map(|v| v.trim().to_string()),
            base: commit.trailer("Goal-Base").map(|v| v.trim().to_string()),
            assisted_by: commit.trailer("Assisted-by").map(|v| v.trim().to_string()),
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
        if let Some(base) = &self.base {
            text.push_str(&format!("Goal-Base: {}\n", one_line(base)));
        }
        if !self.evidence.is_empty() {
            text.push_str(&format!("Goal-Evidence: {}\n", self.evidence.join(", ")));
        }
        if let Some(change) = &self.material_change {
            text.push_str(&format!("Goal-Material-Change: {}\n", one_line(change)));
        }
        if let Some(run) = &self.run {
            let agent = match &self.run_agent {
                Some(a) => format!(
                    " agent={}",
                    a.split_whitespace().collect::<Vec<_>>().join("-")
                ),
                None => String::new(),
            };
            text.push_str(&format!("Goal-Run: {}{agent}\n", one_line(run)));
        }
        if let Some(usage) = self.usage.as_ref().and_then(usage_value) {
            text.push_str(&format!("Goal-Usage: {usage}\n"));
        }
        if let Some(budget) = &self.budget {
            text.push_str(&format!("Goal-Budget: {}\n", one_line(budget)));
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
        for shown in &self.tests_changed {
            text.push_str(&format!("Goal-Tests-Changed: {}\n", one_line(shown)));
        }
        if self.guards_only {
            text.push_str("Goal-Guards-Only: confirmed\n");
        }
        for refusal in &self.mutants_confirmed {
            text.push_str(&format!("Goal-Mutants-Confirmed: {}\n", one_line(refusal)));
        }
        if let Some(agent) = &self.assisted_by {
            let agent = agent.split_whitespace().collect::<Vec<_>>().join("-");
            text.push_str(&format!("Assisted-by: {agent}\n"));
        }
        text
    }
}

/// `<run id> agent=<name>` (the agent part is absent in runs made before failover): the id and
/// the agent.
fn parse_run(value: &str) -> (Option<String>, Option<String>) {
    let mut words = value.split_whitespace();
    let id = words.next().map(str::to_string);
    let agent = words
        .find_map(|w| w.strip_prefix("agent="))
        .filter(|a| !a.is_empty())
        .map(str::to_string);
    (id, agent)
}

/// `input=1200 output=300 cost=0.0123`: the parts reported, or None when none is.
pub fn usage_value(u: &Usage) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(i) = u.input_tokens {
        parts.push(format!("input={i}"));
    }
    if let Some(o) = u.output_tokens {
        parts.push(format!("output={o}"));
    }
    if let Some(c) = u.cost_usd {
        // Micro-dollars are enough; trailing zeros add nothing (a reported 0 stays `0`).
        let text = format!("{c:.6}");
        let text = text.trim_end_matches('0').trim_end_matches('.');
        parts.push(format!("cost={text}"));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The value of a `Goal-Usage` trailer; None when it names nothing readable.
fn parse_usage(value: &str) -> Option<Usage> {
    let mut u = Usage::default();
    for word in value.split_whitespace() {
        match word.split_once('=') {
            Some(("input", n)) => u.input_tokens = n.parse().ok(),
            Some(("output", n)) => u.output_tokens = n.parse().ok(),
            Some(("cost", n)) => u.cost_usd = n.parse().ok().filter(|c: &f64| c.is_finite()),
            _ => {}
        }
    }
    (u != Usage::default()).then_some(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::parse_trailers;

    #[test]
    fn message_round_trip() {
        let t = GoalTrailers {
            action: Some(GoalAction::Criteria),
            iteration: 4,
            status: "in-progress".into(),
            passing: 1,
            total: 3,
            evidence: vec!["e1".into(), "e2".into()],
            material_change: Some("removed criterion 2 \"x\"".into()),
            run: Some("20260101T000000Z-1a2b".into()),
            run_agent: Some("claude".into()),
            usage: Some(Usage {
                input_tokens: Some(1200),
                output_tokens: Some(0),
                cost_usd: Some(0.0125),
            }),
            hooks_skipped: true,
            tests_weakened: vec![
                "skip-added tests/test_calc.py:3 test_add".into(),
                "test-removed src/lib.rs:40 tests::adds".into(),
            ],
            guards_only: true,
            tests_changed: vec![
                "behavior-changed tests/a.py::test_b (criterion 1, record r1)".into(),
            ],
            mutants_confirmed: vec!["unneeded-change src/lib.rs:6".into()],
            verdict: Some("stagnant".into()),
            budget: Some("cost=1.5 iterations=10".into()),
            base: Some("0123456789abcdef0123456789abcdef01234567".into()),
            assisted_by: Some("codex".into()),
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
                "Goal-Hooks: skipped\nGoal-Tests-Weakened: skip-added tests/test_calc.py:3 test_add\nGoal-Tests-Weakened: test-removed src/lib.rs:40 tests::adds\nGoal-Tests-Changed: behavior-changed tests/a.py::test_b (criterion 1, record r1)\nGoal-Guards-Only: confirmed\nGoal-Mutants-Confirmed: unneeded-change src/lib.rs:6\nAssisted-by: codex\n"
            ),
            "{message}"
        );
        assert!(message.starts_with(
            "goal: remove criterion 2\n\nKey: looks like a trailer\n\nGoal-Iteration: 4\n"
        ));
        assert!(
            message.contains(
                "Goal-Run: 20260101T000000Z-1a2b agent=claude\nGoal-Usage: input=1200 output=0 cost=0.0125\n"
            ),
            "{message}"
        );
    }

    #[test]
    fn the_run_and_usage_values() {
        // (Goal-Run value, run id, agent)
        let runs = [
            ("20260101T000000Z-1a2b", Some("20260101T000000Z-1a2b"), None),
            (
                "20260101T000000Z-1a2b agent=codex",
                Some("20260101T000000Z-1a2b"),
                Some("codex"),
            ),
            ("  r1   agent=pi  ", Some("r1"), Some("pi")),
            ("r1 agent=", Some("r1"), None),
            ("", None, None),
        ];
        for (value, id, agent) in runs {
            let (got_id, got_agent) = parse_run(value);
            assert_eq!(
                (got_id.as_deref(), got_agent.as_deref()),
                (id, agent),
                "{value:?}"
            );
        }
        let u = |i: Option<u64>, o: Option<u64>, c: Option<f64>| Usage {
            input_tokens: i,
            output_tokens: o,
            cost_usd: c,
        };
        // (usage, trailer value)
        let usages = [
            (
                u(Some(10), Some(2), Some(0.5)),
                Some("input=10 output=2 cost=0.5"),
            ),
            (u(Some(10), Some(2), None), Some("input=10 output=2")),
            (u(None, None, Some(0.0)), Some("cost=0")),
            (u(None, None, Some(12.0)), Some("cost=12")),
            (u(None, None, Some(0.1234567)), Some("cost=0.123457")),
            (u(None, None, None), None),
        ];
        for (usage, value) in usages {
            assert_eq!(usage_value(&usage).as_deref(), value, "{usage:?}");
            if let Some(v) = value {
                let back = parse_usage(v).unwrap();
                assert_eq!(usage_value(&back).as_deref(), Some(v));
            }
        }
        assert_eq!(parse_usage("nonsense"), None);
        assert_eq!(parse_usage("input=x"), None);
    }
}
