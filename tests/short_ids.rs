//! One short commit id: what `goal done` prints of a guard's base is the base commit, in the
//! same short form as every other commit id it prints.

use crate::common::{Repo, stdout};

#[test]
fn done_names_a_guard_s_base_by_its_commit_in_the_one_short_form() {
    let repo = Repo::new();
    repo.write("g.sh", "#!/bin/sh\necho '2 passed, 0 failed'\n");
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "base"]);
    let base = repo.head();
    repo.ok(&[
        "init",
        "Say hello",
        "-c",
        "hello works (verify: `sh test.sh`)",
        "-c",
        "the old suite still works (guard: `sh g.sh`)",
    ]);
    repo.write("hello.txt", "hello\n");
    repo.ok(&["verify"]);
    let out = repo.goal().arg("done").output().unwrap();
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let text = stdout(&out);
    let short = &base[..10];
    assert!(text.contains(&format!(", guard, base {short})")), "{text}");
    // The commits line uses the same form: ten hex digits each.
    let commits = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("commits: "))
        .unwrap_or_else(|| panic!("no commits line: {text}"));
    for id in commits.split(" (").next().unwrap().split(", ") {
        assert_eq!(id.len(), 10, "{id} in {text}");
        assert!(repo.git(&["rev-parse", id]).starts_with(id));
    }
}
