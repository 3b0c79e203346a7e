//! What a turn of `goal run` may not do on its own: commit a confirmation (only a person
//! confirms), or abandon the goal and start another. Pure: the commits' trailers in, the reason
//! the run stops out.

use crate::trailers::{GoalAction, GoalTrailers};

/// Why the run stops after a turn whose goal commits (oldest first) are `commits`; None when the
/// turn stayed within the goal.
pub fn overstep(commits: &[GoalTrailers]) -> Option<String> {
    let mut confirmations = Vec::new();
    for t in commits {
        confirmations.extend(
            t.tests_weakened
                .iter()
                .map(|v| format!("Goal-Tests-Weakened: {v}")),
        );
        if t.guards_only {
            confirmations.push("Goal-Guards-Only: confirmed".to_string());
        }
        if let Some(m) = &t.material_change {
            confirmations.push(format!("Goal-Material-Change: {m}"));
        }
    }
    if !confirmations.is_empty() {
        return Some(format!(
            "the turn's commits carry a confirmation ({}), and a confirmation is the person's",
            confirmations.join("; ")
        ));
    }
    let abandoned = commits
        .iter()
        .position(|t| t.action == Some(GoalAction::Abandon));
    let started = commits
        .iter()
        .rposition(|t| t.action == Some(GoalAction::Init));
    match (abandoned, started) {
        (Some(a), Some(s)) if s > a => Some(
            "the turn abandoned the goal and started another (see `goal log`; `goal restore` takes the abandoned one back)".to_string(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::goal_file::GoalFile;

    fn commit(action: GoalAction) -> GoalTrailers {
        let goal = GoalFile::new("g", "2026-01-01T00:00:00Z", &[], &[]);
        GoalTrailers::of(&goal, action)
    }

    #[test]
    fn a_turn_that_confirms_or_switches_goals_stops_the_run() {
        let weakened = GoalTrailers {
            tests_weakened: vec!["test-removed tests/a.py:3 test_a".into()],
            ..commit(GoalAction::Done)
        };
        let guards = GoalTrailers {
            guards_only: true,
            ..commit(GoalAction::Done)
        };
        let material = GoalTrailers {
            material_change: Some("removed criterion 1 \"x\"".into()),
            ..commit(GoalAction::Criteria)
        };
        let cases: Vec<(&str, Vec<GoalTrailers>, Option<&str>)> = vec![
            ("no commit", vec![], None),
            (
                "iterations",
                vec![commit(GoalAction::Iterate), commit(GoalAction::Iterate)],
                None,
            ),
            (
                "a criterion added",
                vec![commit(GoalAction::Criteria)],
                None,
            ),
            (
                "weakened tests",
                vec![commit(GoalAction::Iterate), weakened],
                Some("Goal-Tests-Weakened: test-removed"),
            ),
            (
                "guards only",
                vec![guards],
                Some("Goal-Guards-Only: confirmed"),
            ),
            (
                "a material change",
                vec![material],
                Some("Goal-Material-Change: removed criterion 1"),
            ),
            ("abandoned only", vec![commit(GoalAction::Abandon)], None),
            (
                "abandoned, then another",
                vec![commit(GoalAction::Abandon), commit(GoalAction::Init)],
                Some("abandoned the goal and started another"),
            ),
            (
                "a goal started, then abandoned",
                vec![commit(GoalAction::Init), commit(GoalAction::Abandon)],
                None,
            ),
        ];
        for (name, commits, want) in cases {
            let got = overstep(&commits);
            match want {
                None => assert_eq!(got, None, "{name}"),
                Some(w) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(w)),
                    "{name}: {got:?}"
                ),
            }
        }
    }
}
