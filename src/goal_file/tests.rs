//! Tests of the GOAL.md model: parsing, rendering, editing in place.

use super::*;

/// The original design's example goal file, as written there.
const SEED_EXAMPLE: &str = r#"---
goal: "<goal text>"
created: "<ISO 8601 timestamp>"
updated: "<ISO 8601 timestamp>"
iteration: <int>
status: in-progress | blocked | complete
---

# Goal: <goal text>

## Acceptance Criteria
- [ ] <criterion 1>
- [ ] <criterion 2>
- [ ] <criterion 3>

## Progress Log
### Iteration 1
- <work done>
- <verification results>

## Blocked
- <blocker description, or delete section if empty>
"#;

/// The seed's example with its placeholders filled in with values of the right type.
fn seed_filled() -> String {
    SEED_EXAMPLE
        .replace("iteration: <int>", "iteration: 1")
        .replace(
            "status: in-progress | blocked | complete",
            "status: blocked",
        )
}

#[test]
fn seed_example_parses() {
    let goal = GoalFile::parse(&seed_filled()).unwrap();
    assert_eq!(goal.goal, "<goal text>");
    assert_eq!(goal.created.as_deref(), Some("<ISO 8601 timestamp>"));
    assert_eq!(goal.iteration, 1);
    assert_eq!(goal.status, Status::Blocked);
    assert_eq!(
        goal.criteria_texts(),
        ["<criterion 1>", "<criterion 2>", "<criterion 3>"]
    );
    assert_eq!(goal.passing_count(), 0);
    assert_eq!(goal.log().len(), 1);
    assert_eq!(goal.log()[0].number, 1);
    assert_eq!(
        goal.entry_text(&goal.log()[0]),
        "- <work done>\n- <verification results>\n\n"
    );
    assert_eq!(
        goal.blocked.as_deref(),
        Some(&["<blocker description, or delete section if empty>".to_string()][..])
    );
}

#[test]
fn seed_example_verbatim_is_located_as_bad_yaml_values() {
    // Verbatim, the seed's placeholders `<int>` and `in-progress | blocked | complete` are not values.
    let e = GoalFile::parse(SEED_EXAMPLE).unwrap_err();
    assert_eq!(e.line, 5);
}

const ROUND_TRIP: &[&str] = &[
    // unknown keys, comments, extra sections, prose, CRLF-free odd spacing
    "---\ngoal: \"ship it\"\nowner: alice   # who\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\niteration: 2\nstatus: in-progress\ntags: [a, b]\n---\n\nIntro prose.\n\n# Goal: ship it\n\n<!-- a comment -->\n## Notes\nanything *here*\n\n## Acceptance Criteria\n- [x] one\n* [ ] two\n+ [~] three\n1. [-] four\n   - [X] nested five\n- six without box\n\n## Progress Log\n### Iteration 1\n- found it\n### Iteration 2\n- fixed it\n\n## Appendix\n```\n- [ ] not a criterion\n## Acceptance Criteria\n```\n",
    // CRLF line endings, no trailing newline
    "---\r\ngoal: g\r\niteration: 0\r\nstatus: complete\r\n---\r\n## Acceptance Criteria\r\n- [x] a\r\n## Progress Log",
];

#[test]
fn render_parse_round_trip() {
    for text in ROUND_TRIP.iter().copied().chain([seed_filled().as_str()]) {
        let goal = GoalFile::parse(text).unwrap();
        assert_eq!(goal.render(), text);
        assert_eq!(GoalFile::parse(&goal.render()).unwrap(), goal);
    }
}

#[test]
fn checklist_rules() {
    let goal = GoalFile::parse(ROUND_TRIP[0]).unwrap();
    let got: Vec<(usize, &str, bool)> = goal
        .criteria
        .iter()
        .map(|c| (c.number, c.text.as_str(), c.passed))
        .collect();
    assert_eq!(
        got,
        [
            (1, "one", true),
            (2, "two", false),
            (3, "three", false),
            (4, "four", false),
            (5, "nested five", true),
            (6, "six without box", false),
        ]
    );
    assert_eq!(
        goal.log().iter().map(|e| e.number).collect::<Vec<_>>(),
        [1, 2]
    );
}

#[test]
fn edits_change_only_owned_lines() {
    let text = ROUND_TRIP[0];
    let mut goal = GoalFile::parse(text).unwrap();
    goal.set_passed(2, true);
    goal.set_passed(3, true);
    goal.set_passed(6, true);
    goal.set_passed(1, false);
    goal.set_iteration(3);
    goal.set_updated("2026-02-02T00:00:00Z");
    goal.append_iteration(3, &["verified all".into(), "two\nlines".into()]);
    let out = goal.render();
    let expected = text
        .replace("- [x] one", "- [ ] one")
        .replace("* [ ] two", "* [x] two")
        .replace("+ [~] three", "+ [x] three")
        .replace("- six without box", "- [x] six without box")
        .replace("iteration: 2", "iteration: 3")
        .replace(
            "updated: \"2026-01-01T00:00:00Z\"",
            "updated: \"2026-02-02T00:00:00Z\"",
        )
        .replace(
            "- fixed it\n\n## Appendix",
            "- fixed it\n### Iteration 3\n- verified all\n- two\n    lines\n\n## Appendix",
        );
    assert_eq!(out, expected);
    assert_eq!(goal.passing_count(), 4);
    assert_eq!(goal.iteration, 3);
    assert_eq!(goal.log().last().unwrap().number, 3);
}

#[test]
fn new_file_layout_and_lifecycle() {
    let mut goal = GoalFile::new(
        "Make it fast",
        "2026-11-30T15:04:05Z",
        &["tests pass".into()],
        &[],
    );
    assert_eq!(
        goal.render(),
        "---\ngoal: \"Make it fast\"\ncreated: \"2026-11-30T15:04:05Z\"\nupdated: \"2026-11-30T15:04:05Z\"\niteration: 0\nstatus: in-progress\n---\n\n# Goal: Make it fast\n\n## Acceptance Criteria\n- [ ] tests pass\n\n## Progress Log\n"
    );
    let before = goal.render();
    goal.set_blocked("waiting on CI");
    goal.set_status(Status::Blocked);
    assert!(
        goal.render()
            .ends_with("## Progress Log\n\n## Blocked\n- waiting on CI\n")
    );
    assert_eq!(
        goal.blocked.as_deref(),
        Some(&["waiting on CI".to_string()][..])
    );
    goal.clear_blocked();
    goal.set_status(Status::InProgress);
    assert_eq!(goal.render(), before);
    assert_eq!(goal.add_criterion("second", None), 2);
    goal.append_iteration(1, &["added x".into()]);
    goal.edit_criterion(
        1,
        &["tests pass on linux".into(), "tests pass on mac".into()],
    );
    assert_eq!(
        goal.criteria_texts(),
        ["tests pass on linux", "tests pass on mac", "second"]
    );
    goal.remove_criterion(2);
    assert_eq!(goal.criteria_texts(), ["tests pass on linux", "second"]);
    assert!(
        goal.render()
            .contains("## Progress Log\n### Iteration 1\n- added x\n")
    );
}

#[test]
fn phases_group_criteria() {
    let mut goal = GoalFile::new("g", "t", &["a".into()], &["Design".into(), "Build".into()]);
    assert_eq!(goal.phases.len(), 2);
    assert_eq!(goal.add_criterion("b", Some(1)), 2);
    assert_eq!(goal.add_criterion("a2", Some(0)), 2);
    let phases: Vec<_> = goal
        .criteria
        .iter()
        .map(|c| (c.text.as_str(), c.phase))
        .collect();
    assert_eq!(phases, [("a", Some(0)), ("a2", Some(0)), ("b", Some(1))]);
    assert_eq!(goal.current_phase().unwrap().name, "Design");
    goal.set_passed(1, true);
    goal.set_passed(2, true);
    assert_eq!(goal.current_phase().unwrap().name, "Build");
}

/// Bad input → (expected 1-based line, a word the message must contain).
const BAD: &[(&str, &str, usize, &str)] = &[
    (
        "missing frontmatter",
        "# Goal: x\n## Acceptance Criteria\n",
        1,
        "---",
    ),
    ("unclosed frontmatter", "---\ngoal: x\n", 3, "not closed"),
    (
        "bad yaml",
        "---\ngoal: x\n  status: [\niteration: 0\n---\n## Acceptance Criteria\n",
        3,
        "YAML",
    ),
    (
        "unknown status",
        "---\ngoal: x\niteration: 0\nstatus: done\n---\n## Acceptance Criteria\n",
        4,
        "unknown status",
    ),
    (
        "iteration not a number",
        "---\ngoal: x\niteration: three\nstatus: blocked\n---\n## Acceptance Criteria\n",
        3,
        "iteration",
    ),
    (
        "negative iteration",
        "---\ngoal: x\niteration: -1\nstatus: blocked\n---\n## Acceptance Criteria\n",
        3,
        "iteration",
    ),
    (
        "no goal key",
        "---\niteration: 0\nstatus: blocked\n---\n## Acceptance Criteria\n",
        1,
        "goal",
    ),
    (
        "frontmatter not a mapping",
        "---\n- a\n---\n## Acceptance Criteria\n",
        2,
        "mapping",
    ),
    (
        "duplicate sections",
        "---\ngoal: x\niteration: 0\nstatus: blocked\n---\n## Acceptance Criteria\n- [ ] a\n## Progress Log\n## Acceptance Criteria\n",
        9,
        "duplicate",
    ),
    (
        "no criteria section",
        "---\ngoal: x\niteration: 0\nstatus: blocked\n---\n# Goal: x\n",
        7,
        "Acceptance Criteria",
    ),
    ("empty", "", 1, "empty"),
    ("whitespace only", "  \n\n", 1, "empty"),
    (
        "duplicate yaml key",
        "---\ngoal: x\ngoal: y\niteration: 0\nstatus: blocked\n---\n## Acceptance Criteria\n",
        2,
        "YAML",
    ),
];

#[test]
fn bad_input_is_located() {
    for (name, text, line, word) in BAD {
        let e = GoalFile::parse(text).expect_err(name);
        assert_eq!(e.line, *line, "{name}: {e}");
        assert!(e.message.contains(word), "{name}: {e}");
    }
}

#[test]
fn binary_and_invalid_utf8() {
    assert_eq!(GoalFile::parse_bytes(b"---\n\0\x01").unwrap_err().line, 2);
    assert!(
        GoalFile::parse_bytes(b"---\ngoal: \xff\n")
            .unwrap_err()
            .message
            .contains("UTF-8")
    );
}

#[test]
fn headings_and_iteration_titles() {
    let cases: &[(&str, Option<(usize, &str)>)] = &[
        ("## Acceptance Criteria\n", Some((2, "Acceptance Criteria"))),
        (
            "## Acceptance Criteria ##\n",
            Some((2, "Acceptance Criteria")),
        ),
        ("   ### Iteration 3", Some((3, "Iteration 3"))),
        ("    ## code block", None),
        ("#hashtag", None),
        ("####### seven", None),
        ("#", Some((1, ""))),
        ("## C# notes", Some((2, "C# notes"))),
    ];
    for (line, want) in cases {
        assert_eq!(markdown::heading(line), *want, "{line:?}");
    }
    let text = "---\ngoal: g\niteration: 2\nstatus: in-progress\n---\n## Acceptance Criteria\n## Progress Log\n### Iteration 1\n- a\n### iteration 2: late\n- b\n### Iterations 3\n- c\n### Iteration 4x\n";
    let goal = GoalFile::parse(text).unwrap();
    assert_eq!(
        goal.log().iter().map(|e| e.number).collect::<Vec<_>>(),
        [1, 2]
    );
}

#[test]
fn an_iteration_number_that_overflows_is_just_a_heading() {
    let text = "---\ngoal: g\niteration: 0\nstatus: in-progress\n---\n## Acceptance Criteria\n## Progress Log\n### Iteration 99999999999999999999999\n- a\n### Iteration 2\n- b\n";
    let goal = GoalFile::parse(text).unwrap();
    assert_eq!(goal.log().iter().map(|e| e.number).collect::<Vec<_>>(), [2]);
    assert_eq!(
        goal.log_entry(2)
            .map(|e| goal.entry_text(&e).to_string())
            .as_deref(),
        Some("- b\n")
    );
    assert!(goal.log_entry(1).is_none());
}

#[test]
fn line_starts_match_a_byte_by_byte_count() {
    fn naive(bytes: &[u8]) -> Vec<u32> {
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' && i + 1 < bytes.len() {
                starts.push(i as u32 + 1);
            }
        }
        starts.push(bytes.len() as u32);
        starts
    }
    // Every placement of newlines among bytes that could fool a word-at-a-time scan: 0x0a's
    // neighbours, 0x8a (0x0a with the high bit), 0x00, 0xff, across chunk borders.
    let alphabet = [b'\n', b'\x0b', b'\x09', b'\x8a', 0, 0xff, b'a', 0x80];
    let mut cases: Vec<Vec<u8>> = vec![Vec::new(), b"\n".to_vec(), b"\n\n".to_vec()];
    for len in 1..=200 {
        for seed in 0..64usize {
            let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(len);
            let text = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    alphabet[(state >> 33) % alphabet.len()]
                })
                .collect();
            cases.push(text);
        }
    }
    cases.push(b"---\ngoal: x\n---\n### Iteration 1\n- a\n".repeat(50));
    for case in cases {
        assert_eq!(lines::line_starts(&case), naive(&case), "{case:?}");
    }
}

/// What the Progress Log's fast skip must still see, and what it must not take for a section.
#[test]
fn sections_after_a_long_progress_log() {
    let head = "---\ngoal: \"x\"\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\niteration: 2\nstatus: blocked\n---\n\n# Goal: x\n\n## Acceptance Criteria\n- [ ] a\n\n## Progress Log\n";
    let log = "### Iteration 1\n- did a\n#### detail\n\tindented by a tab\n  - sub bullet\n\n### Iteration 2\n- did b\n";
    /// The bullets of `## Blocked` when there is one, or the line of the expected error.
    type Expected = Result<Option<&'static [&'static str]>, usize>;
    let cases: &[(&str, Expected)] = &[
        ("", Ok(None)),
        ("## Blocked\n- waiting\n", Ok(Some(&["waiting"]))),
        (
            "   ## Blocked\n- three spaces of indent is still a heading\n",
            Ok(Some(&["three spaces of indent is still a heading"])),
        ),
        ("    ## Blocked\n", Ok(None)),
        ("```\n## Blocked\n```\n", Ok(None)),
        (
            "  ~~~~\n## Acceptance Criteria\n  ~~~~\n## Blocked\n- after the fence\n",
            Ok(Some(&["after the fence"])),
        ),
        ("<!--\n## Blocked\n-->\n", Ok(None)),
        (
            "<!-- one line --> \n## Blocked\n- seen\n",
            Ok(Some(&["seen"])),
        ),
        ("### Blocked\n- an entry heading, not a section\n", Ok(None)),
        (
            "# Other\n## Blocked\n- under a level-1 heading too\n",
            Ok(Some(&["under a level-1 heading too"])),
        ),
        ("## Acceptance Criteria\n- [ ] again\n", Err(23)),
        ("## Progress Log\n", Err(23)),
    ];
    for (tail, expected) in cases {
        let text = format!("{head}{log}{tail}");
        match (GoalFile::parse(&text), expected) {
            (Ok(goal), Ok(blocked)) => {
                let got: Option<Vec<&str>> = goal
                    .blocked
                    .as_ref()
                    .map(|b| b.iter().map(String::as_str).collect());
                assert_eq!(got.as_deref(), *blocked, "{tail:?}");
                assert_eq!(goal.criteria.len(), 1, "{tail:?}");
                assert_eq!(goal.log().len(), 2, "{tail:?}");
            }
            (Err(e), Err(line)) => assert_eq!(e.line, *line, "{tail:?}: {e}"),
            (got, _) => panic!("{tail:?}: {got:?}"),
        }
    }
}

/// A GOAL.md with `entries` iterations in its Progress Log (`iteration` in the frontmatter),
/// `extra` put right after entry `at` (None: nowhere) and `tail` after the log.
fn long_goal(entries: u64, at: Option<u64>, extra: &str, tail: &str, nl: &str) -> Vec<u8> {
    let mut text = format!(
        "---{nl}goal: \"long\"{nl}iteration: {entries}{nl}status: in-progress{nl}---{nl}{nl}# Goal: long{nl}{nl}## Acceptance Criteria{nl}- [x] one (verify: `cargo test`){nl}- [ ] two{nl}{nl}## Progress Log{nl}"
    );
    for n in 1..=entries {
        text.push_str(&format!(
            "### Iteration {n}{nl}- worked on step {n}, a line long enough to fill a buffer{nl}- fixed {n}{nl}{nl}"
        ));
        if at == Some(n) {
            text.push_str(extra);
        }
    }
    text.push_str(tail);
    text.into_bytes()
}

/// The lean read of a view against the whole file's parse: same frontmatter, criteria, sections
/// and entries of the window; or the whole read is asked for.
#[test]
fn a_view_leaves_out_only_entries_older_than_the_window() {
    use lean::Lean;
    let window = 6;
    let blocked = "## Blocked\n- waiting for the API key\n";
    let fence = "```\n## Progress Log\n```\n";
    let comment = "<!--\n## Blocked\n- not a blocker\n-->\n";
    // (what, file, the lean read must leave old entries out)
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        ("short log", long_goal(3, None, "", "", "\n"), false),
        ("long log", long_goal(5000, None, "", "", "\n"), true),
        ("CRLF", long_goal(3000, None, "", "", "\r\n"), true),
        (
            "no final newline",
            {
                let mut t = long_goal(2000, None, "", "", "\n");
                t.pop();
                t
            },
            true,
        ),
        (
            "Blocked after the log",
            long_goal(2000, None, "", blocked, "\n"),
            true,
        ),
        (
            "a fence in an old entry",
            long_goal(2000, Some(10), fence, "", "\n"),
            false,
        ),
        (
            "a comment in an old entry",
            long_goal(2000, Some(10), comment, blocked, "\n"),
            false,
        ),
        (
            "a section in the middle of the log",
            long_goal(2000, Some(10), blocked, "", "\n"),
            false,
        ),
        (
            "a fence in a recent entry",
            long_goal(2000, Some(1998), fence, "", "\n"),
            true,
        ),
        (
            "a recent entry among old ones",
            {
                let t = long_goal(
                    2000,
                    Some(5),
                    "### Iteration 1999\n- out of order\n",
                    "",
                    "\n",
                );
                String::from_utf8(t)
                    .unwrap()
                    .replace(
                        "### Iteration 1999\n- worked",
                        "### Iteration 1999b\n- worked",
                    )
                    .into_bytes()
            },
            false,
        ),
        (
            "invalid UTF-8 in an old entry",
            {
                let mut t = long_goal(2000, Some(5), "- caf\u{e9}\n", "", "\n");
                let at = t.windows(3).position(|w| w == "caf".as_bytes()).unwrap() + 3;
                t.splice(at..at + 2, [0xff]);
                t
            },
            false,
        ),
        (
            "a Progress Log heading in a comment before the log",
            {
                let t = String::from_utf8(long_goal(2000, None, "", "", "\n")).unwrap();
                let fake: String = (1..40)
                    .map(|n| format!("### Iteration {n}\n- old\n"))
                    .collect();
                t.replacen(
                    "## Progress Log\n",
                    &format!("<!--\n## Progress Log\n{fake}-->\n## Progress Log\n"),
                    1,
                )
                .into_bytes()
            },
            false,
        ),
        (
            "no Progress Log",
            {
                let t = String::from_utf8(long_goal(0, None, "", "", "\n")).unwrap();
                t.replace("## Progress Log\n", "").into_bytes()
            },
            false,
        ),
    ];
    for (what, bytes, drops) in cases {
        let whole = GoalFile::parse_bytes(&bytes);
        let lean = lean::read(&bytes[..], window).unwrap();
        let goal = match (lean, whole) {
            (Lean::Read(goal), Ok(whole)) => {
                assert!(goal.partial || !drops, "{what}: nothing left out");
                assert_eq!(
                    (
                        &goal.goal,
                        goal.iteration,
                        goal.status,
                        &goal.criteria,
                        &goal.phases,
                        &goal.blocked
                    ),
                    (
                        &whole.goal,
                        whole.iteration,
                        whole.status,
                        &whole.criteria,
                        &whole.phases,
                        &whole.blocked
                    ),
                    "{what}"
                );
                for n in whole.iteration.saturating_sub(window)..=whole.iteration {
                    assert_eq!(
                        goal.log_entry(n).map(|e| goal.entry_text(&e).to_string()),
                        whole.log_entry(n).map(|e| whole.entry_text(&e).to_string()),
                        "{what}: entry {n}"
                    );
                }
                goal
            }
            (Lean::Whole, _) => {
                assert!(!drops, "{what}: read whole");
                continue;
            }
            (Lean::Read(_), Err(e)) => panic!("{what}: the whole file does not parse ({e:?})"),
        };
        if drops {
            assert!(
                goal.text.len() < bytes.len() / 10,
                "{what}: old entries left out"
            );
        }
    }
}
