//! The evidence rules as tables: proof, the chain, the witness, failure reasons.

use super::*;

fn run(
    criteria: &[usize],
    exit_code: i32,
    tests: Option<(u64, u64)>,
    tree: &str,
    check: bool,
) -> NewRecord {
    NewRecord {
        criteria: criteria.iter().map(|&n| (n, format!("c{n}"))).collect(),
        argv: vec!["cargo".into(), "test".into()],
        cwd: String::new(),
        exit_code,
        started: "2026-11-30T00:00:00Z".into(),
        duration_ms: 5,
        tree: tree.into(),
        tree_after: None,
        created: Vec::new(),
        changed: Vec::new(),
        tests: tests.map(|(p, f)| TestCounts {
            passed: p,
            failed: f,
            ignored: 0,
        }),
        junit: Vec::new(),
        check,
        output: b"ok\n".to_vec(),
    }
}

fn ledger(runs: Vec<NewRecord>) -> (Ledger, String) {
    let mut text = String::new();
    let mut prev = String::new();
    for r in runs {
        let (record, line) = seal(r, &prev);
        prev = record.hash;
        text.push_str(&line);
    }
    (Ledger::parse(text.as_bytes()).unwrap(), text)
}

#[test]
fn proof_rules() {
    // (runs, criterion asked, tree asked, proven?, reason contains)
    type Case = (Vec<NewRecord>, usize, &'static str, Option<&'static str>);
    let cases: Vec<Case> = vec![
        (vec![run(&[1], 0, Some((3, 0)), "T", false)], 1, "T", None),
        (
            vec![run(&[1], 0, Some((3, 0)), "T", false)],
            2,
            "T",
            Some("no evidence"),
        ),
        (
            vec![run(&[1], 0, Some((3, 0)), "OLD", false)],
            1,
            "T",
            Some("stale"),
        ),
        (
            vec![run(&[1], 1, Some((2, 1)), "T", false)],
            1,
            "T",
            Some("exited 1"),
        ),
        (
            vec![run(&[1], 0, Some((0, 0)), "T", false)],
            1,
            "T",
            Some("no tests ran"),
        ),
        (
            vec![run(&[1], 0, None, "T", false)],
            1,
            "T",
            Some("no test summary"),
        ),
        (vec![run(&[1], 0, None, "T", true)], 1, "T", None),
        (
            vec![run(&[1], 1, None, "T", true)],
            1,
            "T",
            Some("exited 1"),
        ),
        (
            vec![
                run(&[1], 0, Some((3, 0)), "T", false),
                run(&[1], 1, Some((2, 1)), "T", false),
            ],
            1,
            "T",
            Some("failed"),
        ),
        (
            vec![
                run(&[1], 1, Some((2, 1)), "T", false),
                run(&[1, 2], 0, Some((3, 0)), "T", false),
            ],
            1,
            "T",
            None,
        ),
    ];
    for (i, (runs, number, tree, want)) in cases.into_iter().enumerate() {
        let (ledger, _) = ledger(runs);
        let got = ledger.proof(number, &format!("c{number}"), tree);
        match want {
            None => assert!(got.is_ok(), "case {i}: {got:?}"),
            Some(word) => assert!(
                got.as_ref().is_err_and(|e| e.contains(word)),
                "case {i}: {got:?}"
            ),
        }
    }
}

#[test]
fn red_fields_and_names_round_trip_and_old_lines_still_verify() {
    use crate::test_names::{TestName, TestOutcome};
    // A line written before the red run existed: no red, base_run or tests.names.
    let (old, old_line) = seal(run(&[1], 0, Some((3, 0)), "T", false), "");
    assert!(!old_line.contains("\"red\""), "{old_line}");
    assert!(!old_line.contains("base_run"), "{old_line}");
    assert!(!old_line.contains("names"), "{old_line}");
    let parsed = Ledger::parse(old_line.as_bytes()).unwrap();
    assert!(parsed.verify_chain().is_ok());
    assert_eq!(parsed.records[0], old);
    let names = TestNames {
        names: vec![TestName {
            name: "tests/test_calc.py::test_add".into(),
            outcome: TestOutcome::Failed,
        }],
        truncated: false,
    };
    let extra = Extra {
        names: Some(names.clone()),
        red: Some(Red {
            base: "b".repeat(40),
            tests: "a".repeat(40),
            environment: None,
            load_failed: Vec::new(),
        }),
        base_run: true,
        locks: None,
        exam: None,
        ran: Vec::new(),
    };
    let (new, line) = seal_with(run(&[1], 1, Some((0, 1)), "R", false), extra, &old.hash);
    assert!(
        line.contains("\"tests\":{\"passed\":0,\"failed\":1,\"ignored\":0,\"names\":{\"names\":[{\"name\":\"tests/test_calc.py::test_add\",\"outcome\":\"failed\"}]}}"),
        "{line}"
    );
    assert!(line.contains("\"base_run\":true"), "{line}");
    let both = Ledger::parse(format!("{old_line}{line}").as_bytes()).unwrap();
    assert!(both.verify_chain().is_ok());
    assert_eq!(both.records[1], new);
    assert_eq!(both.records[1].names, Some(names));
    assert!(!both.records[1].on_working_code());
}

#[test]
fn reworded_criterion_voids_evidence() {
    let (ledger, _) = ledger(vec![run(&[1], 0, Some((3, 0)), "T", false)]);
    assert!(ledger.proof(1, "c1", "T").is_ok());
    assert!(ledger.proof(1, "something else", "T").is_err());
}

#[test]
fn chain_detects_edits_removals_and_reorders() {
    let (good, text) = ledger(vec![
        run(&[1], 0, Some((1, 0)), "A", false),
        run(&[2], 1, Some((0, 1)), "A", false),
        run(&[2], 0, Some((1, 0)), "B", false),
    ]);
    assert!(good.verify_chain().is_ok());
    assert!(good.has_passing_test("A"));
    assert!(!good.has_passing_test("C"));
    let lines: Vec<&str> = text.lines().collect();
    let edited = text.replace("\"exit_code\":1", "\"exit_code\":0");
    let removed = format!("{}\n{}\n", lines[0], lines[2]);
    let reordered = format!("{}\n{}\n{}\n", lines[1], lines[0], lines[2]);
    for (name, bad) in [
        ("edited", edited),
        ("removed", removed),
        ("reordered", reordered),
    ] {
        let ledger = Ledger::parse(bad.as_bytes()).unwrap();
        assert!(ledger.verify_chain().is_err(), "{name}");
    }
    let edited = text.replace("\"exit_code\":1", "\"exit_code\":0");
    let ledger = Ledger::parse(edited.as_bytes()).unwrap();
    let id = &ledger.records[1].id;
    assert!(
        ledger
            .proof(2, "c2", "A")
            .unwrap_err()
            .contains(id.as_str())
    );
}

#[test]
fn malformed_lines_are_located() {
    assert_eq!(Ledger::parse(b"{}\n").unwrap_err().0, 1);
    let (_, text) = ledger(vec![run(&[1], 0, Some((1, 0)), "A", false)]);
    let bad = format!("{text}not json\n");
    assert_eq!(Ledger::parse(bad.as_bytes()).unwrap_err().0, 2);
}

#[test]
fn failure_reasons_name_what_went_wrong() {
    // (exit code, tests passed/failed, --check) → the reason, with the record's id as ID.
    let table = [
        (
            1,
            Some((2, 1)),
            false,
            "evidence ID failed: `cargo test` exited 1",
        ),
        (
            0,
            Some((2, 1)),
            false,
            "evidence ID failed: 1 test(s) failed",
        ),
        (
            0,
            Some((0, 1)),
            false,
            "evidence ID failed: 1 test(s) failed",
        ),
        (
            0,
            Some((0, 0)),
            false,
            "evidence ID: no tests ran (red flag: \"tests don't run but code looks fine\")",
        ),
        (
            0,
            None,
            false,
            "evidence ID: `cargo test` printed no test summary; run a test command, or `goal verify --check` for a linter or script",
        ),
        (0, None, true, "evidence ID does not pass"),
        (0, Some((3, 0)), false, "evidence ID does not pass"),
    ];
    for (exit_code, tests, check, want) in table {
        let (record, _) = seal(run(&[1], exit_code, tests, "T", check), "");
        assert_eq!(
            record.failure_reason(),
            want.replace("ID", &record.id),
            "{exit_code} {tests:?} {check}"
        );
    }
}

#[test]
fn an_id_that_is_not_a_long_enough_prefix_of_the_hash_is_a_broken_link() {
    let (_, text) = ledger(vec![run(&[1], 0, Some((1, 0)), "A", false)]);
    let good = Ledger::parse(text.as_bytes()).unwrap();
    let id = good.records[0].id.clone();
    let hash = good.records[0].hash.clone();
    assert!(good.verify_chain().is_ok());
    // The id and the hash are outside the hashed content: each check must hold on its own.
    for (name, new_id) in [
        ("not a prefix", "zzzzzzzzzzzz".to_string()),
        ("too short", hash[..7].to_string()),
    ] {
        let bad = text.replace(&format!("\"id\":\"{id}\""), &format!("\"id\":\"{new_id}\""));
        let ledger = Ledger::parse(bad.as_bytes()).unwrap();
        assert_eq!(
            ledger.verify_chain(),
            Err(format!(
                "record {new_id} (line 1) was changed after it was written"
            )),
            "{name}"
        );
        assert!(ledger.is_broken(&new_id), "{name}");
    }
    // An 8-digit prefix is still the record.
    let short = text.replace(
        &format!("\"id\":\"{id}\""),
        &format!("\"id\":\"{}\"", &hash[..8]),
    );
    assert!(
        Ledger::parse(short.as_bytes())
            .unwrap()
            .verify_chain()
            .is_ok()
    );
}

#[test]
fn line_numbers_count_every_line_blank_ones_too() {
    let (_, text) = ledger(vec![
        run(&[1], 0, Some((1, 0)), "A", false),
        run(&[2], 0, Some((1, 0)), "A", false),
    ]);
    let lines: Vec<&str> = text.lines().collect();
    let second = Ledger::parse(text.as_bytes()).unwrap().records[1]
        .id
        .clone();
    let blank = Ledger::parse(format!("{}\n\n{}\n", lines[0], lines[1]).as_bytes());
    assert!(
        blank.unwrap().verify_chain().is_ok(),
        "a blank line is skipped"
    );
    let edited = lines[1].replace("\"duration_ms\":5", "\"duration_ms\":6");
    let ledger = Ledger::parse(format!("{}\n\n{edited}\n", lines[0]).as_bytes()).unwrap();
    assert_eq!(
        ledger.verify_chain(),
        Err(format!(
            "record {second} (line 3) was changed after it was written"
        ))
    );
    let swapped = Ledger::parse(format!("{}\n{}\n", lines[1], lines[0]).as_bytes()).unwrap();
    assert_eq!(
        swapped.verify_chain(),
        Err(format!(
            "record {second} (line 1) does not follow the record before it (a line was removed, reordered or inserted)"
        ))
    );
    // Malformed lines: (line, message).
    let at = |bytes: &[u8]| Ledger::parse(bytes).unwrap_err();
    assert_eq!(at(format!("{}\n\n[1]\n", lines[0]).as_bytes()).0, 3);
    assert_eq!(
        at(format!("{}\n\n[1]\n", lines[0]).as_bytes()).1,
        "expected a JSON object"
    );
    assert_eq!(at(b"\n{}\n").0, 2);
    assert_eq!(at(b"\n\n{not json\n").0, 3);
    // Line 4: three newlines before the bad byte (and two other bytes, which do not count).
    let utf8 = at(b"\n{}\n\n\xff\n");
    assert_eq!(
        utf8,
        (4, "invalid UTF-8: expected one JSON object a line".into())
    );
}

#[test]
fn the_witness_decides_which_records_count() {
    let (ledger, _) = ledger(vec![
        run(&[1], 0, Some((3, 0)), "T", false),
        run(&[2], 0, Some((3, 0)), "T", false),
    ]);
    let first = ledger.records[0].clone();
    let second = ledger.records[1].clone();
    assert_eq!(ledger.head_hash(), second.hash);
    assert_eq!(Ledger::default().head_hash(), "");
    assert_eq!(ledger.find(&second.id), Some(&second));
    assert_eq!(ledger.find(&first.id), Some(&first));
    assert_eq!(ledger.find("000000000000"), None);
    // Only the second record is in this clone's witness.
    let ledger = ledger.with_witness([second.hash.clone()].into_iter().collect());
    assert_eq!(ledger.records.len(), 2, "the witness keeps the records");
    assert_eq!(
        ledger.proof(1, "c1", "T"),
        Err(format!(
            "evidence {} was not recorded by `goal verify` in this repository (written by hand, or copied from another clone); run `goal verify -c 1 -- <test command>` here",
            first.id
        ))
    );
    assert_eq!(ledger.proof(2, "c2", "T"), Ok(&second));
    assert!(ledger.has_passing_test("T"));
    let none = ledger.with_witness(Default::default());
    assert!(!none.has_passing_test("T"));
}

#[test]
fn a_pinned_criterion_counts_only_its_pins_runs() {
    let pinned = "c1 (verify: `cargo test`)";
    let mut other = run(&[1], 0, Some((3, 0)), "T", false);
    other.argv = vec!["cargo".into(), "test".into(), "x".into()];
    let (wrong, _) = ledger(vec![other]);
    assert_eq!(
        wrong.proof(1, pinned, "T"),
        Err(format!(
            "evidence {} ran `cargo test x`, but the criterion is pinned to `cargo test` at the worktree root: only its pin proves it; run `goal verify -c 1`",
            wrong.records[0].id
        ))
    );
    let (right, _) = ledger(vec![run(&[1], 0, Some((3, 0)), "T", false)]);
    assert!(right.proof(1, pinned, "T").is_ok());
}

#[test]
fn an_edited_record_on_another_tree_is_not_stale_evidence() {
    let (_, text) = ledger(vec![run(&[1], 0, Some((3, 0)), "OLD", false)]);
    let edited = text.replace("\"duration_ms\":5", "\"duration_ms\":6");
    let ledger = Ledger::parse(edited.as_bytes()).unwrap();
    assert!(ledger.verify_chain().is_err());
    assert_eq!(
        ledger.proof(1, "c1", "T"),
        Err("no evidence names it; run `goal verify -c 1 -- <test command>`".to_string())
    );
    // Unedited, the same record is stale evidence.
    let ledger = Ledger::parse(text.as_bytes()).unwrap();
    assert!(
        ledger
            .proof(1, "c1", "T")
            .unwrap_err()
            .starts_with("stale: ")
    );
}
