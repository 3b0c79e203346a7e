//! The commit gate: what the pre-commit and commit-msg hooks refuse, and what `goal`'s own
//! commits are held to, through this one code path.

use std::path::Path;

use crate::error::Error;
use crate::evidence::Ledger;
use crate::goal_file::{GoalFile, Status};
use crate::material;

/// One reason to refuse a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// The staged GOAL.md does not parse.
    Unparseable { line: usize, message: String },
    /// A criterion newly ticked without passing evidence on the staged tree.
    Unproven {
        number: usize,
        text: String,
        why: String,
        /// Its pin was last proven as a check: the hint says `--check`.
        check: bool,
    },
    /// `status: complete` without evidence for every criterion (or without test evidence at all).
    CompleteUnproven { why: String },
    /// A criterion removed or materially reworded without a `Goal-Material-Change` trailer.
    Material {
        number: usize,
        text: String,
        reason: String,
    },
    /// evidence.jsonl does not verify.
    Evidence { message: String },
}

/// What the gate looks at, already read from git.
pub struct GateInput<'a> {
    pub head_goal: Option<&'a GoalFile>,
    pub staged_goal: std::result::Result<Option<&'a GoalFile>, (usize, String)>,
    pub ledger: &'a Ledger,
    /// The staged tree without the goal folder.
    pub tree: &'a str,
    /// The commit message, when it is known (commit-msg hook, goal's own commits).
    pub message: Option<&'a str>,
}

/// The rules, as a pure function of what is staged.
pub fn evaluate(input: &GateInput) -> Vec<Violation> {
    let staged = match input.staged_goal {
        Err((line, ref message)) => {
            return vec![Violation::Unparseable {
                line,
                message: message.clone(),
            }];
        }
        Ok(None) => return Vec::new(), // deleting the goal files passes (done, abandon)
        Ok(Some(goal)) => goal,
    };
    let mut violations = Vec::new();
    if let Err(e) = input.ledger.verify_chain() {
        violations.push(Violation::Evidence { message: e });
    }
    newly_ticked_unproven(input, staged, &mut violations);
    completion_unproven(input, staged, &mut violations);
    material_unrecorded(input, staged, &mut violations);
    violations
}

/// Is each criterion ticked by this commit (not ticked at HEAD) proven on the staged tree?
fn newly_ticked_unproven(input: &GateInput, staged: &GoalFile, violations: &mut Vec<Violation>) {
    let passed_before: std::collections::HashSet<&str> = input
        .head_goal
        .map(|h| {
            h.criteria
                .iter()
                .filter(|c| c.passed)
                .map(|c| c.text.as_str())
                .collect()
        })
        .unwrap_or_default();
    let was_passed = |text: &str| passed_before.contains(text);
    for c in staged
        .criteria
        .iter()
        .filter(|c| c.passed && !was_passed(&c.text))
    {
        if let Err(why) = input.ledger.proof(c.number, &c.text, input.tree) {
            violations.push(Violation::Unproven {
                number: c.number,
                text: c.text.clone(),
                why,
                check: input.ledger.pin_runs_as_check(c.number, &c.text),
            });
        }
    }
}

/// Is a `status: complete` this commit sets proven: criteria there, each proven (those already
/// reported unproven aside), and a passing test on the staged tree?
fn completion_unproven(input: &GateInput, staged: &GoalFile, violations: &mut Vec<Violation>) {
    let was_complete = input
        .head_goal
        .is_some_and(|h| h.status == Status::Complete);
    if staged.status != Status::Complete || was_complete {
        return;
    }
    if staged.criteria.is_empty() {
        violations.push(Violation::CompleteUnproven {
            why: "the goal has no criteria".into(),
        });
    }
    for c in &staged.criteria {
        if let Err(why) = input.ledger.proof(c.number, &c.text, input.tree)
            && !violations
                .iter()
                .any(|v| matches!(v, Violation::Unproven { number, .. } if *number == c.number))
        {
            violations.push(Violation::CompleteUnproven {
                why: format!("criterion {} \"{}\": {why}", c.number, c.text),
            });
        }
    }
    if !input.ledger.has_passing_test(input.tree) {
        violations.push(Violation::CompleteUnproven {
            why: "no passing test evidence on this tree (a check alone cannot complete a goal)"
                .into(),
        });
    }
}

/// Does the commit, when its message is known, remove or materially reword a criterion of HEAD's
/// goal without a `Goal-Material-Change` trailer?
fn material_unrecorded(input: &GateInput, staged: &GoalFile, violations: &mut Vec<Violation>) {
    let (Some(message), Some(head)) = (input.message, input.head_goal) else {
        return;
    };
    let recorded = crate::repo::parse_trailers(message)
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("Goal-Material-Change"));
    if recorded {
        return;
    }
    for change in material::compare(&head.criteria_texts(), &staged.criteria_texts()) {
        violations.push(Violation::Material {
            number: change.number,
            text: change.text,
            reason: change.reason,
        });
    }
}

/// Render violations as one refusal that names each criterion and the command to run.
pub fn refusal(violations: &[Violation], goal_rel: &Path) -> Error {
    let mut lines = Vec::new();
    let mut hints = Vec::new();
    for v in violations {
        match v {
            Violation::Unparseable { line, message } => {
                lines.push(format!(
                    "{}:{line}: the staged GOAL.md does not parse: {message}",
                    goal_rel.display()
                ));
                hints.push(format!("fix {} and `git add` it again", goal_rel.display()));
            }
            Violation::Unproven {
                number,
                text,
                why,
                check,
            } => {
                lines.push(format!(
                    "criterion {number} \"{text}\" is ticked without proof: {why}"
                ));
                hints.push(if *check {
                    format!("goal verify --check -c {number} (its pinned check), then stage the goal files")
                } else if crate::pin::argv(text).is_some() {
                    format!("goal verify -c {number} (its pinned test), then stage the goal files")
                } else {
                    format!("goal verify -c {number} -- <test command>")
                });
            }
            Violation::CompleteUnproven { why } => {
                lines.push(format!("status `complete` is not proven: {why}"));
                hints.push(
                    "goal verify -c <N> -- <test command> for each criterion, then `goal done`"
                        .into(),
                );
            }
            Violation::Material {
                number,
                text,
                reason,
            } => {
                lines.push(format!(
                    "criterion {number} \"{text}\" is changed materially ({reason}) without a Goal-Material-Change record"
                ));
                hints.push(crate::person::offer(
                    "record it",
                    &format!(
                        "goal criteria edit {number} \"<text>\" --confirm` or `goal criteria remove {number} --confirm"
                    ),
                ));
            }
            Violation::Evidence { message } => {
                lines.push(format!("evidence.jsonl does not verify: {message}"));
                hints.push(crate::error::broken_ledger_hint(
                    &goal_rel.with_file_name(crate::store::EVIDENCE_FILE),
                ));
            }
        }
    }
    hints.dedup();
    Error::GateRefused {
        message: format!("commit refused by the goal gate:\n  {}", lines.join("\n  ")),
        hints,
    }
}

/// `refusal` with what caused it: evidence.jsonl was not staged because `rule` (`file:line:pattern`,
/// as `git check-ignore -v` names it) ignores it; the evidence is there, only not in the commit.
pub fn ignored_evidence(refusal: Error, evidence_rel: &Path, rule: &str) -> Error {
    let Error::GateRefused { message, mut hints } = refusal else {
        return refusal;
    };
    let path = evidence_rel.display();
    hints.insert(
        0,
        format!("stage it anyway with `git add -f {path}` (or un-ignore it: `!{path}` in .gitignore), then commit again"),
    );
    Error::GateRefused {
        message: format!(
            "{message}\n  {path} is not in the commit: the ignore rule {rule} covers it, so its evidence was never staged"
        ),
        hints,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{NewRecord, seal};
    use crate::summary::TestCounts;

    fn goal(status: &str, criteria: &[&str]) -> GoalFile {
        let list: String = criteria.iter().map(|c| format!("- {c}\n")).collect();
        GoalFile::parse(&format!(
            "---\ngoal: \"g\"\niteration: 0\nstatus: {status}\n---\n## Acceptance Criteria\n{list}## Progress Log\n"
        ))
        .unwrap()
    }

    /// A ledger of one passing run on tree T naming criterion 1 ("a passes"): a test run, or a
    /// check (`goal verify --check`) when `tests` is false.
    fn ledger(tests: bool) -> Ledger {
        let (_, line) = seal(
            NewRecord {
                criteria: vec![(1, "a passes".into())],
                argv: vec!["t".into()],
                cwd: String::new(),
                exit_code: 0,
                started: "2026-11-30T00:00:00Z".into(),
                duration_ms: 1,
                tree: "T".into(),
                tree_after: None,
                created: Vec::new(),
                changed: Vec::new(),
                tests: tests.then_some(TestCounts {
                    passed: 1,
                    failed: 0,
                    ignored: 0,
                }),
                junit: Vec::new(),
                check: !tests,
                output: Vec::new(),
            },
            "",
        );
        Ledger::parse(line.as_bytes()).unwrap()
    }

    fn kinds(violations: &[Violation]) -> Vec<String> {
        violations
            .iter()
            .map(|v| match v {
                Violation::Unparseable { .. } => "unparseable".to_string(),
                Violation::Unproven { number, .. } => format!("unproven {number}"),
                Violation::CompleteUnproven { why } => format!("complete: {why}"),
                Violation::Material { number, .. } => format!("material {number}"),
                Violation::Evidence { .. } => "evidence".to_string(),
            })
            .collect()
    }

    #[test]
    fn the_gate_as_a_table() {
        let in_progress = goal("in-progress", &["[ ] a passes", "[ ] b passes"]);
        let a_ticked = goal("in-progress", &["[x] a passes", "[ ] b passes"]);
        let complete_a = goal("complete", &["[x] a passes"]);
        let head_a = goal("in-progress", &["[ ] a passes"]);
        let complete_empty = goal("complete", &[]);
        let b_dropped = goal("in-progress", &["[ ] a passes"]);
        let tests = ledger(true);
        let check = ledger(false);
        let none = Ledger::default();
        // (head, staged, ledger, message) → violations
        type Case<'a> = (
            Option<&'a GoalFile>,
            &'a GoalFile,
            &'a Ledger,
            Option<&'a str>,
            &'a [&'a str],
        );
        let b_unproven = "complete: criterion 2 \"b passes\": no evidence names it; run `goal verify -c 2 -- <test command>`";
        let cases: &[Case] = &[
            (Some(&in_progress), &a_ticked, &tests, None, &[]),
            (Some(&in_progress), &a_ticked, &none, None, &["unproven 1"]),
            // Already ticked at HEAD: not re-judged.
            (Some(&a_ticked), &a_ticked, &none, None, &[]),
            (Some(&head_a), &complete_a, &tests, None, &[]),
            // A check alone proves the criterion but cannot complete a goal.
            (
                Some(&head_a),
                &complete_a,
                &check,
                None,
                &[
                    "complete: no passing test evidence on this tree (a check alone cannot complete a goal)",
                ],
            ),
            // Complete already at HEAD: not re-judged.
            (Some(&complete_a), &complete_a, &none, None, &[]),
            (
                Some(&in_progress),
                &goal("complete", &["[x] a passes", "[ ] b passes"]),
                &tests,
                None,
                &[b_unproven],
            ),
            // A criterion both newly ticked and unproven is reported once, as unproven.
            (
                Some(&in_progress),
                &goal("complete", &["[x] a passes", "[x] b passes"]),
                &tests,
                None,
                &["unproven 2"],
            ),
            (
                Some(&in_progress),
                &complete_empty,
                &tests,
                None,
                &["complete: the goal has no criteria"],
            ),
            // Material changes are judged only with a message, and pass with the trailer.
            (Some(&in_progress), &b_dropped, &none, None, &[]),
            (
                Some(&in_progress),
                &b_dropped,
                &none,
                Some("drop b\n"),
                &["material 2"],
            ),
            (
                Some(&in_progress),
                &b_dropped,
                &none,
                Some("drop b\n\nGoal-Material-Change: out of scope\n"),
                &[],
            ),
            (
                Some(&in_progress),
                &b_dropped,
                &none,
                Some("drop b\n\ngoal-material-change: out of scope\n"),
                &[],
            ),
        ];
        for (i, (head, staged, ledger, message, want)) in cases.iter().enumerate() {
            let got = evaluate(&GateInput {
                head_goal: *head,
                staged_goal: Ok(Some(staged)),
                ledger,
                tree: "T",
                message: *message,
            });
            assert_eq!(kinds(&got), *want, "case {i}");
        }
        // Deleting the goal passes; a staged goal that does not parse is the only violation.
        let input = |staged| GateInput {
            head_goal: Some(&in_progress),
            staged_goal: staged,
            ledger: &none,
            tree: "T",
            message: Some("x"),
        };
        assert!(evaluate(&input(Ok(None))).is_empty());
        assert_eq!(
            evaluate(&input(Err((3, "bad".into())))),
            [Violation::Unparseable {
                line: 3,
                message: "bad".into()
            }]
        );
    }
}

#[cfg(test)]
mod refusal_tests {
    use super::*;

    /// The refusal keeps one hint per reason (deduplicated) as a list, and renders them one per
    /// line under `hint:`.
    #[test]
    fn hints_are_a_list_rendered_one_per_line() {
        let violations = [
            Violation::Evidence {
                message: "line 2: bad hash".into(),
            },
            Violation::CompleteUnproven { why: "a".into() },
            Violation::CompleteUnproven { why: "b".into() },
        ];
        let e = refusal(&violations, Path::new(".agents/goal/GOAL.md"));
        let Error::GateRefused { hints, .. } = &e else {
            panic!("not a gate refusal: {e:?}");
        };
        assert_eq!(hints.len(), 2, "{hints:?}");
        let text = e.render();
        assert!(
            text.contains(&format!("hint: {}\n      {}\n", hints[0], hints[1])),
            "{text}"
        );
    }
}
