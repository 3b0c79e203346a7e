//! Generative tests: random and mutated inputs never panic; valid GOAL.md files round-trip byte
//! for byte; invalid ones are refused with a location (exit 2) and left unchanged on disk.

use goal::evidence::Ledger;
use goal::goal_file::GoalFile;
use proptest::prelude::*;

use crate::common::{Repo, stderr};

/// Text a user might put in a criterion, a goal or a log line (markdown-ish, some unicode).
fn words() -> impl Strategy<Value = String> {
    prop::string::string_regex("[a-zA-Z0-9 `#*_>\\-\\[\\]()|:.,'\"é中文✓]{1,40}")
        .unwrap()
        .prop_map(|s| s.trim().to_string())
        .prop_filter("non-empty", |s| !s.is_empty())
}

fn marker() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "- [ ] ", "- [x] ", "- [X] ", "* [ ] ", "+ [~] ", "1. [-] ", "  - [ ] ", "- ",
    ])
}

/// A valid GOAL.md with unknown keys, sections, comments and prose mixed in.
fn goal_md() -> impl Strategy<Value = String> {
    (
        words(),
        0u64..1000,
        prop::sample::select(vec!["in-progress", "blocked", "complete"]),
        prop::collection::vec((marker(), words()), 0..12),
        prop::collection::vec(prop::collection::vec(words(), 1..3), 0..6),
        prop::collection::vec(words(), 0..3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(goal, iteration, status, criteria, log, extra, crlf, blocked)| {
                let mut text = String::new();
                text.push_str("---\n");
                text.push_str(&format!(
                    "goal: {}\n",
                    serde_json::Value::String(goal.clone())
                ));
                text.push_str("created: \"2026-01-01T00:00:00Z\"\n");
                text.push_str(&format!("iteration: {iteration}\nstatus: {status}\n"));
                for (i, e) in extra.iter().enumerate() {
                    text.push_str(&format!(
                        "extra{i}: {}\n",
                        serde_json::Value::String(e.clone())
                    ));
                }
                text.push_str("---\n\n# Goal: x\n\n<!-- kept -->\n");
                for e in &extra {
                    text.push_str(&format!("## Notes {}\nprose line\n\n", e.replace('#', "")));
                }
                text.push_str("## Acceptance Criteria\n");
                for (m, c) in &criteria {
                    text.push_str(&format!("{m}{}\n", c.replace('\n', " ")));
                }
                text.push_str("\n## Progress Log\n");
                for (i, lines) in log.iter().enumerate() {
                    text.push_str(&format!("### Iteration {}\n", i + 1));
                    for l in lines {
                        text.push_str(&format!("- {l}\n"));
                    }
                }
                text.push_str(
                    "\n```\n## Acceptance Criteria\n- [x] fenced, not a criterion\n```\n",
                );
                if blocked {
                    text.push_str("\n## Blocked\n- waiting\n");
                }
                if crlf {
                    text.replace('\n', "\r\n")
                } else {
                    text
                }
            },
        )
        // Lines that turn into headings or fences change the structure: keep the generator valid.
        .prop_filter("parses", |t| GoalFile::parse(t).is_ok())
}

/// Cases per property: PROPTEST_CASES when set (for a long run), else the default given.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(300), ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = GoalFile::parse_bytes(&bytes);
        let _ = Ledger::parse(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let _ = goal::retry::RetryState::parse(&text);
        let _ = goal::retry::parse_judge_input(&text);
        let _ = goal::detect::detect(&text);
        let _ = goal::summary::recognise(&text);
    }

    #[test]
    fn valid_files_round_trip(text in goal_md()) {
        let goal = GoalFile::parse(&text).unwrap();
        prop_assert_eq!(goal.render(), text.clone());
        prop_assert_eq!(GoalFile::parse(&goal.render()).unwrap(), goal);
    }

    #[test]
    fn mutated_files_parse_or_fail_with_a_location(
        text in goal_md(),
        cut in any::<prop::sample::Index>(),
        op in 0u8..5,
        junk in "[-#`>*\\[\\]x :\n]{0,12}",
    ) {
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        let i = cut.index(lines.len().max(1)).min(lines.len().saturating_sub(1));
        let junk_line = format!("{junk}\n");
        match op {
            0 => { lines.remove(i); }
            1 => { let l = lines[i]; lines.insert(i, l); }
            2 => lines.insert(i, &junk_line),
            3 => lines[i] = &junk_line,
            _ => lines.truncate(i),
        }
        let mutated = lines.concat();
        match GoalFile::parse(&mutated) {
            Ok(goal) => prop_assert_eq!(goal.render(), mutated),
            Err(e) => {
                let count = mutated.split_inclusive('\n').count();
                prop_assert!(e.line >= 1 && e.line <= count + 1, "line {} of {}", e.line, count)
            }
        }
    }

    #[test]
    fn edits_keep_what_goal_does_not_own(text in goal_md(), n in 1usize..5, words in words()) {
        let mut goal = GoalFile::parse(&text).unwrap();
        let before: Vec<String> = text.lines().filter(|l| l.contains("prose line") || l.contains("<!-- kept -->") || l.starts_with("extra")).map(str::to_string).collect();
        goal.set_passed(n, true);
        goal.add_criterion(&words, None);
        goal.append_iteration(goal.iteration + 1, std::slice::from_ref(&words));
        goal.set_iteration(goal.iteration + 1);
        goal.set_blocked(&words);
        goal.clear_blocked();
        let out = goal.render();
        let after: Vec<String> = out.lines().filter(|l| l.contains("prose line") || l.contains("<!-- kept -->") || l.starts_with("extra")).map(str::to_string).collect();
        prop_assert_eq!(before, after);
        prop_assert!(GoalFile::parse(&out).is_ok());
    }

    #[test]
    fn evidence_lines_mutated_never_panic(line in "[{}\\[\\]\":,a-z0-9 ]{0,80}") {
        let _ = Ledger::parse(format!("{line}\n").as_bytes());
    }
}

/// Through the binary: invalid files give exit 2 with file:line and stay byte-identical.
#[test]
fn invalid_files_through_the_binary_are_refused_and_untouched() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(24).min(200),
        ..ProptestConfig::default()
    });
    let strategy = (
        goal_md(),
        any::<prop::sample::Index>(),
        "[-#`>:\\[\\]]{1,6}",
    );
    let repo = Repo::new();
    let refused = std::cell::Cell::new(0);
    runner
        .run(&strategy, |(text, at, junk)| {
            // Break the frontmatter: a YAML line that cannot parse, at a random frontmatter spot.
            let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
            let i = 1 + at.index(3);
            lines.insert(i, format!("{junk}: [\n"));
            let broken = lines.concat();
            if GoalFile::parse(&broken).is_ok() {
                return Ok(());
            }
            repo.write(".agents/goal/GOAL.md", &broken);
            for args in [
                &["status"][..],
                &["iterate", "-m", "x"],
                &["criteria", "add", "y passes"],
            ] {
                let out = repo.goal().args(args).output().unwrap();
                assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
                assert!(
                    stderr(&out).contains(".agents/goal/GOAL.md:"),
                    "{}",
                    stderr(&out)
                );
                assert_eq!(repo.read(".agents/goal/GOAL.md"), broken);
            }
            refused.set(refused.get() + 1);
            Ok(())
        })
        .unwrap();
    assert!(
        refused.get() >= 10,
        "only {} broken files were generated",
        refused.get()
    );
}

/// Through the binary: random input to `goal hook claude` and `goal attempt judge --stdin`.
#[test]
fn random_json_input_never_crashes_the_adapters() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(24).min(200),
        ..ProptestConfig::default()
    });
    let repo = Repo::new();
    let strategy = prop_oneof![
        "[{}\\[\\]\":,a-zA-Z_0-9 ]{0,60}",
        Just("{\"hook_event_name\": \"Stop\", \"stop_hook_active\": \"yes\"}".to_string()),
        Just("{\"hook_event_name\": \"UserPromptSubmit\", \"prompt\": null}".to_string()),
        Just("{\"attempts\": [{\"outcome\": \"failure\", \"strategyId\": 3}]}".to_string()),
    ];
    runner
        .run(&strategy, |input| {
            let out = repo
                .goal()
                .args(["hook", "claude"])
                .write_stdin(input.clone())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{input:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.is_empty() || serde_json::from_str::<serde_json::Value>(&text).is_ok(),
                "{input:?}: {text}"
            );
            let out = repo
                .goal()
                .args(["attempt", "judge", "--stdin"])
                .write_stdin(input.clone())
                .output()
                .unwrap();
            assert!(matches!(out.status.code(), Some(0..=2)), "{input:?}");
            Ok(())
        })
        .unwrap();
}
