//! `goal criteria add/edit/remove` and the material-change rule: a change that lowers the bar
//! needs --confirm and is recorded in the commit's trailer.

use crate::common::{Repo, stderr};

/// An added way out ("or …", "unless …") or an exact figure made a bound lowers the bar like a
/// negation: refused without --confirm, recorded in the trailer with it.
#[test]
fn an_alternative_or_a_bound_is_a_material_change() {
    let repo = Repo::new();
    repo.init_goal(&[
        "add(2, 2) returns 4 (verify: `sh t.sh`)",
        "search returns 4 results",
    ]);
    let before = repo.goal_md();
    let head = repo.head();
    for (number, text, reason) in [
        (
            "1",
            "add(2, 2) returns 4, or raises (verify: `sh t.sh`)",
            "adds the alternative \"or\"",
        ),
        (
            "1",
            "add(2, 2) returns 4 unless it overflows (verify: `sh t.sh`)",
            "adds the alternative \"unless\"",
        ),
        (
            "2",
            "search returns at most 4 results",
            "turns an exact figure into a bound (\"at most\")",
        ),
    ] {
        repo.refused(
            &["criteria", "edit", number, text],
            1,
            &[reason, "--confirm"],
        );
        assert_eq!(repo.goal_md(), before, "{text}");
        assert_eq!(repo.head(), head, "{text}");
    }
    repo.ok(&[
        "criteria",
        "edit",
        "1",
        "add(2, 2) returns 4, or raises (verify: `sh t.sh`)",
        "--confirm",
    ]);
    let record = repo.trailer("HEAD", "Goal-Material-Change").unwrap();
    assert!(record.contains("adds the alternative \"or\""), "{record}");
}

#[test]
fn criteria_changes_and_the_material_change_rule() {
    let repo = Repo::new();
    repo.init_goal(&["excess requests return 429", "p99 latency under 200 ms"]);
    // A typo fix is safe.
    repo.ok(&["criteria", "edit", "1", "excess requests retrun 429"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Material-Change"), None);
    // Dropping the number is material: refused, nothing changes.
    let before = repo.goal_md();
    let head = repo.head();
    let out = repo
        .goal()
        .args(["criteria", "edit", "2", "p99 latency is low"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--confirm"), "{}", stderr(&out));
    assert_eq!(repo.goal_md(), before);
    assert_eq!(repo.head(), head);
    // Removing is material too.
    repo.refused(
        &["criteria", "remove", "2"],
        1,
        &["removing criterion 2", "is a material change", "--confirm"],
    );
    assert_eq!(repo.goal_md(), before);
    // A confirmed rewording: applied, and recorded in the commit's trailer, old → new.
    repo.ok(&["criteria", "edit", "2", "p99 latency is low", "--confirm"]);
    assert!(repo.goal_md().contains("- [ ] p99 latency is low\n"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Material-Change").as_deref(),
        Some(
            "criterion 2 \"p99 latency under 200 ms\" → \"p99 latency is low\" (drops the number 200)"
        )
    );
    repo.git(&["reset", "-q", "--hard", &head]);
    // Confirmed: applied and recorded.
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    let record = repo.trailer("HEAD", "Goal-Material-Change").unwrap();
    assert!(record.contains("p99 latency under 200 ms"), "{record}");
    // A split that covers the old text is safe.
    repo.ok(&["criteria", "add", "lint clean and typecheck passes"]);
    repo.ok(&["criteria", "edit", "2", "lint clean", "typecheck passes"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Material-Change"), None);
    assert!(
        repo.goal_md()
            .contains("- [ ] lint clean\n- [ ] typecheck passes\n")
    );
    // Out of range and empty text are bad input.
    repo.refused(
        &["criteria", "edit", "9", "x"],
        2,
        &["there is no criterion 9"],
    );
    repo.refused(
        &["criteria", "add", " "],
        2,
        &["the criterion text is empty"],
    );
    repo.assert_fsck();
}
