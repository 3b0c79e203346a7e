//! The prompt of one `goal run` turn, from the goal, its proof and what the loop knows. Pure.

use crate::goal_file::GoalFile;
use crate::proof::{Proof, ProofState};
use crate::stagnation::STRATEGY_PROMPT;
use crate::texts as inject;

/// What the loop adds to the goal's own state.
#[derive(Debug, Default)]
pub struct Extra<'a> {
    /// The last verdict after an iteration was stagnant.
    pub stagnant: bool,
    /// The last refusal of `goal done`.
    pub refusal: Option<&'a str>,
    /// Why the previous try of this iteration failed.
    pub last_failure: Option<&'a str>,
    /// The language of the continuation lines (see `Config::prompt_language`).
    pub language: crate::config::Language,
}

/// The whole prompt of a turn.
pub fn turn_prompt(goal: &GoalFile, proof: &Proof, extra: &Extra) -> String {
    let mut text = inject::injection(goal, proof, None);
    text.push('\n');
    if goal.criteria.is_empty() {
        text.push_str(
            "This goal has no acceptance criteria yet. Write them first, before any code: each one an observable outcome pinned to the test command that proves it:\n  goal criteria add \"<observable outcome>\" --verify \"<test command>\"\nThen work on them one at a time.\n",
        );
    } else {
        let todo: Vec<_> = proof
            .criteria
            .iter()
            .filter(|c| c.state != ProofState::Proven)
            .collect();
        if !todo.is_empty() {
            text.push_str("Criteria not proven yet (prove each with its re-run line once the code is there):\n");
            for c in todo {
                let criterion = goal
                    .criteria
                    .iter()
                    .find(|k| k.number == c.number)
                    .map(|k| k.text.as_str())
                    .unwrap_or_default();
                let line = c
                    .rerun_line()
                    .unwrap_or_else(|| format!("goal verify -c {} -- <test command>", c.number));
                text.push_str(&format!(
                    "- {}. {criterion} [{}] — re-run: `{line}`\n",
                    c.number,
                    c.state.as_str()
                ));
            }
            text.push('\n');
        } else if let Err(unaccepted) = &proof.acceptance {
            // Proven one by one, yet `goal done` would refuse (a check alone, a broken ledger).
            text.push_str(&format!(
                "Every criterion is proven, but `goal done` would refuse: {}.\n\n",
                unaccepted.reason()
            ));
        }
    }
    text.push_str(crate::texts::TEST_FIRST);
    if goal.settings.mutants != crate::goal_file::Mutants::Off {
        text.push(' ');
        text.push_str(crate::texts::MUTANTS_ON);
    }
    text.push_str("\n\n");
    if extra.stagnant {
        text.push_str(STRATEGY_PROMPT);
        text.push_str("\n\n");
    }
    if let Some(refusal) = extra.refusal {
        text.push_str(&format!(
            "The last `goal done` refused to complete the goal:\n{refusal}\n\n"
        ));
    }
    if let Some(failure) = extra.last_failure {
        text.push_str(&format!(
            "The previous try of this iteration failed ({failure}); pick up where it stopped.\n\n"
        ));
    }
    text.push_str(&match extra.language {
        crate::config::Language::Zh => inject::continuation(goal, proof.proven),
        crate::config::Language::En => inject::continuation_en(goal, proof.proven),
    });
    text.push_str(
        "\nYou are run by `goal run`, one turn at a time. Work toward the criteria above; prove each with `goal verify` (its re-run line) — only test evidence on the current code counts, your own words do not. When you finish a step, you may record it with `goal iterate -m \"<what you did and verified>\"`; otherwise `goal run` records the turn for you. Do not run `goal done`: `goal run` calls it when every criterion is proven.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Ledger;

    #[test]
    fn the_prompt_holds_the_goal_the_open_criteria_and_the_loops_notes() {
        let goal = GoalFile::new(
            "Rate limit the login",
            "2026-01-01T00:00:00Z",
            &[
                "Excess requests return 429 (verify: `cargo test rate_limit`)".into(),
                "Docs mention the limit".into(),
            ],
            &[],
        );
        let proof = crate::proof::judge(&goal, &Ledger::default(), None);
        let text = turn_prompt(
            &goal,
            &proof,
            &Extra {
                stagnant: true,
                refusal: Some("criterion 2 has no passing evidence"),
                last_failure: None,
                language: crate::config::Language::Zh,
            },
        );
        for part in [
            "[goal-driven-loop] ACTIVE GOAL\nRate limit the login\n",
            "- 1. Excess requests return 429 (verify: `cargo test rate_limit`) [open] — re-run: `goal verify -c 1`",
            "- 2. Docs mention the limit [open] — re-run: `goal verify -c 2 -- <test command>`",
            STRATEGY_PROMPT,
            "criterion 2 has no passing evidence",
            "目标状态已保存至",
        ] {
            assert!(text.contains(part), "missing {part:?} in:\n{text}");
        }
        let plain = turn_prompt(&goal, &proof, &Extra::default());
        assert!(!plain.contains("Stagnation detected"));
        // Test first, seen failing, never a test edited to pass; and not in `goal inject`'s text.
        for words in [
            "write or name the test of each criterion before the code, run `goal verify -c N` and see it fail, then make it pass",
            "never edit a test to make it pass",
        ] {
            assert!(plain.contains(words), "missing {words:?} in:\n{plain}");
            assert!(!inject::injection(&goal, &proof, None).contains(words));
        }
    }

    #[test]
    fn a_survivor_is_explained_only_when_mutants_are_on() {
        let mut goal = GoalFile::new("Ship it", "2026-01-01T00:00:00Z", &["a".into()], &[]);
        let proof = crate::proof::judge(&goal, &Ledger::default(), None);
        let off = turn_prompt(&goal, &proof, &Extra::default());
        assert!(!off.contains(crate::texts::MUTANTS_ON), "{off}");
        let settings = crate::goal_file::Settings {
            mutants: crate::goal_file::Mutants::Gate,
            ..Default::default()
        };
        goal.set_settings(&settings);
        let on = turn_prompt(&goal, &proof, &Extra::default());
        assert!(on.contains("never a test to weaken"), "{on}");
    }

    #[test]
    fn with_no_criteria_it_asks_for_pinned_criteria_first() {
        let goal = GoalFile::new("Ship it", "2026-01-01T00:00:00Z", &[], &[]);
        let proof = crate::proof::judge(&goal, &Ledger::default(), None);
        let text = turn_prompt(&goal, &proof, &Extra::default());
        assert!(
            text.contains("goal criteria add \"<observable outcome>\" --verify \"<test command>\"")
        );
    }

    /// The continuation lines follow `goal.language` when it is set, else the goal's own language.
    #[test]
    fn the_prompt_speaks_the_goals_language() {
        use crate::config::{Config, Language};
        // (goal text, goal.language, expected line, line that must not be there)
        let cases: &[(&str, Option<Language>, &str, &str)] = &[
            (
                "Rate limit the login",
                None,
                "Goal state saved to",
                "目标状态",
            ),
            ("给登录加限流", None, "目标状态已保存至", "Goal state saved"),
            (
                "ログインを制限する",
                None,
                "目标状态已保存至",
                "Goal state saved",
            ),
            (
                "Rate limit the login",
                Some(Language::Zh),
                "目标状态已保存至",
                "Goal state saved",
            ),
            (
                "给登录加限流",
                Some(Language::En),
                "Goal state saved to",
                "目标状态",
            ),
        ];
        for (text, set, want, not) in cases {
            let config = Config {
                language: set.unwrap_or_default(),
                language_set: set.is_some(),
                ..Config::default()
            };
            let goal = GoalFile::new(text, "2026-01-01T00:00:00Z", &["it works".into()], &[]);
            let proof = crate::proof::judge(&goal, &Ledger::default(), None);
            let prompt = turn_prompt(
                &goal,
                &proof,
                &Extra {
                    language: config.prompt_language(text),
                    ..Extra::default()
                },
            );
            assert!(prompt.contains(want), "{text} {set:?}: {prompt}");
            assert!(!prompt.contains(not), "{text} {set:?}: {prompt}");
        }
    }
}
