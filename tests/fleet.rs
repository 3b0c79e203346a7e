//! Many agents, many branches: `goal recheck` (finished goals rechecked on the merged tree),
//! `goal fleet` (every goal in flight), and the merge driver for the goal files.

use std::process::Output;

use crate::common::{Repo, TestEnv, json, stderr, stdout};

/// A test script printing a plain summary line.
fn script(passed: u32, failed: u32) -> String {
    format!(
        "#!/bin/sh\necho \"{passed} passed, {failed} failed\"\nexit {}\n",
        u32::from(failed > 0)
    )
}

/// A test of the goal's work (the file `work`): it fails on the code before the goal, as a pinned
/// acceptance test must (red before green), and passes with `passed` tests once `work` exists.
fn work_script(passed: u32, work: &str) -> String {
    format!(
        "#!/bin/sh\nif [ ! -f {work} ]; then echo \"0 passed, {passed} failed\"; exit 1; fi\necho \"{passed} passed, 0 failed\"\n"
    )
}

fn recheck(repo: &Repo, args: &[&str]) -> Output {
    repo.goal().arg("recheck").args(args).output().unwrap()
}

/// A goal with a pinned test and an unpinned criterion, proven and done.
fn finished(repo: &Repo, goal: &str, test: &str) {
    repo.goal()
        .args(["init", goal])
        .args(["-c", &format!("{goal} works (verify: `sh {test}`)")])
        .args(["-c", "the docs say so"])
        .assert()
        .success();
    let work = format!(
        "src/{}.txt",
        test.rsplit('/').next().unwrap().trim_end_matches(".sh")
    );
    repo.write(test, &work_script(2, &work));
    repo.write(&work, "the work\n");
    repo.ok(&["verify"]);
    repo.ok(&["verify", "-c", "2", "--", "sh", test]);
    repo.ok(&["iterate", "-m", "implemented it"]);
    repo.ok(&["done"]);
}

/// What recheck must leave as it was: the commits, the working tree, the goal files.
fn snapshot(repo: &Repo) -> (String, String, usize) {
    (repo.head(), repo.status_porcelain(), repo.commit_count())
}

#[test]
fn recheck_says_broken_after_a_breaking_commit_and_holds_after_the_fix() {
    let repo = Repo::new();
    finished(&repo, "parse rows", "tests/rows.sh");
    let before = snapshot(&repo);
    let out = recheck(&repo, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("holds"), "{text}");
    assert!(text.contains("unpinned"), "{text}");
    assert!(text.contains("recheck: ok"), "{text}");

    // A later commit breaks what the goal proved.
    repo.write("tests/rows.sh", &script(1, 1));
    repo.git(&["commit", "-q", "-am", "refactor the parser"]);
    let before = (repo.head(), before.1, before.2 + 1);
    for args in [&[][..], &["--all"][..]] {
        let out = recheck(&repo, &[args, &["--json"]].concat());
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
        let v = json(&out);
        let goals = v["goals"].as_array().unwrap();
        assert_eq!(goals.len(), 1, "{v}");
        assert_eq!(goals[0]["goal"], "parse rows");
        let complete = repo.git(&["log", "--format=%H", "--grep=Goal-Action: complete"]);
        assert_eq!(goals[0]["commit"], complete.trim());
        let c = goals[0]["criteria"].as_array().unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0]["number"], 1);
        assert_eq!(c[0]["text"], "parse rows works");
        assert_eq!(c[0]["verdict"], "broken", "{v}");
        assert_eq!(
            c[0]["output_tail"],
            serde_json::json!(["1 passed, 1 failed"])
        );
        assert_eq!(c[1]["verdict"], "unpinned");
    }
    assert_eq!(snapshot(&repo), before, "recheck changed something");
    assert!(!repo.exists(".agents/goal/evidence.jsonl"));

    let out = recheck(&repo, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with("::error ")
            && l.contains("criterion 1 broken")
            && l.contains("1 passed, 1 failed")),
        "{text}"
    );

    // The fix.
    repo.write("tests/rows.sh", &script(3, 0));
    repo.git(&["commit", "-q", "-am", "fix the parser"]);
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["goals"][0]["criteria"][0]["verdict"], "holds");
    assert_eq!(
        v["goals"][0]["criteria"][0]["output_tail"],
        serde_json::json!([])
    );
    assert_eq!(repo.status_porcelain(), "");
}

#[test]
fn recheck_finds_goals_merged_from_branches_and_narrows_to_a_range() {
    let repo = Repo::new();
    finished(&repo, "alpha", "tests/alpha.sh");
    let main_tip = repo.head();
    repo.git(&["checkout", "-q", "-b", "side"]);
    finished(&repo, "beta", "tests/beta.sh");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    let v = json(&recheck(&repo, &["--json"]));
    let names: Vec<&str> = v["goals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["goal"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta"], "{v}");
    let range = format!("{main_tip}..HEAD");
    let v = json(&recheck(&repo, &[range.as_str(), "--json"]));
    assert_eq!(v["goals"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["goals"][0]["goal"], "beta");
}

#[test]
fn recheck_runs_guards_and_says_cannot_run() {
    let repo = Repo::new();
    repo.write("lint.sh", "#!/bin/sh\necho lint clean\n");
    repo.write("check.sh", "#!/bin/sh\necho 1 passed, 0 failed\n");
    std::fs::set_permissions(
        repo.path().join("check.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "tools"]);
    // A finished goal as history holds it, however it was made.
    repo.write(
        ".agents/goal/GOAL.md",
        "---\ngoal: \"tools\"\niteration: 1\nstatus: complete\n---\n\n# Goal: tools\n\n## Acceptance Criteria\n- [x] it checks (verify: `./check.sh`)\n- [x] lint is clean (guard: `sh lint.sh`)\n\n## Progress Log\n### Iteration 1\n- done\n",
    );
    repo.git(&["add", "."]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "goal: complete\n\nGoal-Iteration: 1\nGoal-Status: complete\nGoal-Passing: 2/2\nGoal-Action: complete",
    ]);
    repo.git(&["rm", "-q", "-r", ".agents"]);
    repo.git(&["commit", "-q", "-m", "goal: done"]);
    let v = json(&recheck(&repo, &["--json"]));
    let c = &v["goals"][0]["criteria"];
    assert_eq!(c[0]["verdict"], "holds", "{v}");
    assert_eq!(c[1]["verdict"], "holds", "{v}");
    assert_eq!(c[1]["text"], "lint is clean");
    // The tool is gone: its pin cannot run.
    repo.git(&["rm", "-q", "check.sh"]);
    repo.git(&["commit", "-q", "-m", "drop the tool"]);
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["goals"][0]["criteria"][0]["verdict"], "cannot-run", "{v}");
    assert_eq!(v["goals"][0]["criteria"][1]["verdict"], "holds", "{v}");
}

#[test]
fn recheck_bad_input_is_exit_2() {
    let repo = Repo::new();
    let out = recheck(&repo, &["no-such-rev..HEAD"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no-such-rev..HEAD"),
        "{}",
        stderr(&out)
    );
    let out = recheck(&repo, &["--json", "--format", "github"]);
    assert_eq!(out.status.code(), Some(2));
    // Nothing finished yet: nothing to recheck, and that holds.
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out), serde_json::json!({"goals": []}));
}

fn fleet(repo: &Repo, args: &[&str]) -> serde_json::Value {
    let out = repo
        .goal()
        .arg("fleet")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    json(&out)
}

fn rows(v: &serde_json::Value) -> Vec<serde_json::Value> {
    v["goals"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [serde_json::Value], place: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["where"] == place)
        .unwrap_or_else(|| panic!("no row {place}: {rows:?}"))
}

/// A repository with a goal on main, a linked worktree on `side` with an iteration of its own, a
/// branch `waiting` at the goal's init, a branch `shipped` whose goal is done, and a branch
/// `by-hand` whose tip was committed without goal.
fn busy() -> (Repo, tempfile::TempDir, std::path::PathBuf) {
    let repo = Repo::new();
    repo.write("tests/a.sh", &work_script(1, "src/parser.txt"));
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "tests"]);
    repo.goal()
        .args(["init", "ship the parser"])
        .args([
            "-c",
            "it parses (verify: `sh tests/a.sh`)",
            "-c",
            "the docs say so",
        ])
        .assert()
        .success();
    repo.git(&["branch", "waiting"]);
    repo.git(&["branch", "by-hand"]);
    repo.git(&["branch", "shipped"]);
    let (guard, wt) = repo.add_worktree();
    repo.goal_in(&wt)
        .args(["iterate", "-m", "tried a thing"])
        .assert()
        .success();
    // shipped: the goal done, on a branch not checked out anywhere.
    let (guard2, wt2) = {
        let g = tempfile::TempDir::new().unwrap();
        let p = g.path().join("shipped");
        repo.git(&["worktree", "add", "-q", p.to_str().unwrap(), "shipped"]);
        (g, p)
    };
    std::fs::create_dir_all(wt2.join("src")).unwrap();
    std::fs::write(wt2.join("src/parser.txt"), "the parser\n").unwrap();
    repo.goal_in(&wt2).args(["verify"]).assert().success();
    repo.goal_in(&wt2)
        .args(["verify", "-c", "2", "--", "sh", "tests/a.sh"])
        .assert()
        .success();
    repo.goal_in(&wt2).args(["done"]).assert().success();
    repo.git(&["worktree", "remove", wt2.to_str().unwrap()]);
    drop(guard2);
    // by-hand: GOAL.md edited and committed without goal.
    repo.git(&["checkout", "-q", "by-hand"]);
    let md = repo
        .goal_md()
        .replace("status: in-progress", "status: blocked");
    repo.write(".agents/goal/GOAL.md", &md);
    repo.git(&["commit", "-q", "--no-verify", "-am", "edit by hand"]);
    repo.git(&["checkout", "-q", "main"]);
    // Live progress on main: the work and a passing verify, not committed.
    repo.write("src/parser.txt", "the parser\n");
    repo.ok(&["verify", "-c", "1"]);
    (repo, guard, wt)
}

#[test]
fn fleet_lists_worktrees_with_live_progress_and_branch_tips() {
    let (repo, _guard, wt) = busy();
    let v = fleet(&repo, &[]);
    let rows = rows(&v);
    let places: Vec<&str> = rows.iter().map(|r| r["where"].as_str().unwrap()).collect();
    let main_path = repo.path().display().to_string();
    let wt_path = wt.display().to_string();
    assert_eq!(
        places,
        [&main_path, &wt_path, "by-hand", "shipped", "waiting"],
        "{v}"
    );
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    let mut want = vec![
        "where",
        "kind",
        "branch",
        "goal",
        "status",
        "iteration",
        "proven",
        "total",
        "age_s",
        "flags",
        "run",
    ];
    want.sort();
    let mut got: Vec<&str> = keys.iter().map(|k| k.as_str()).collect();
    got.sort();
    assert_eq!(got, want);

    let main = row(&rows, &main_path);
    assert_eq!(main["kind"], "worktree");
    assert_eq!(main["branch"], "main");
    assert_eq!(main["goal"], "ship the parser");
    assert_eq!(main["status"], "in-progress");
    assert_eq!(main["iteration"], 0);
    // The uncommitted verify shows: live progress.
    assert_eq!(main["proven"], 1, "{main}");
    assert_eq!(main["total"], 2);
    assert_eq!(main["age_s"], 0);
    assert_eq!(main["flags"], serde_json::json!([]));
    assert_eq!(main["run"], serde_json::Value::Null);

    let side = row(&rows, &wt_path);
    assert_eq!(side["branch"], "side");
    assert_eq!(side["iteration"], 1);
    assert_eq!(side["proven"], 0);

    let waiting = row(&rows, "waiting");
    assert_eq!(waiting["kind"], "branch");
    assert_eq!(waiting["branch"], "waiting");
    assert_eq!(waiting["status"], "in-progress");
    assert_eq!(waiting["iteration"], 0);
    assert_eq!(waiting["proven"], 0);

    let shipped = row(&rows, "shipped");
    assert_eq!(shipped["status"], "complete", "{shipped}");
    assert_eq!(shipped["goal"], "ship the parser");
    assert_eq!(shipped["proven"], 2);
    assert_eq!(shipped["total"], 2);

    let by_hand = row(&rows, "by-hand");
    assert_eq!(by_hand["status"], "blocked");
    assert_eq!(
        by_hand["flags"],
        serde_json::json!(["blocked", "hand-made"])
    );

    // The text table has a row for each.
    let out = repo.goal().arg("fleet").output().unwrap();
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("shipped") && l.contains("complete")),
        "{text}"
    );
}

#[test]
fn fleet_shows_remote_branches_only_with_remote_as_last_fetched() {
    let (origin, _guard, wt) = busy();
    let home = tempfile::TempDir::new().unwrap();
    let clone = home.path().join("clone");
    origin.git(&[
        "clone",
        "-q",
        origin.path().to_str().unwrap(),
        clone.to_str().unwrap(),
    ]);
    let clone = Repo {
        dir: tempfile::TempDir::new_in(home.path()).unwrap(),
        env: TestEnv::new(),
    };
    // Work in the clone through -C (the Repo helper's own folder stays empty).
    let at = home.path().join("clone");
    let fleet_at = |args: &[&str]| {
        let out = clone
            .goal()
            .arg("-C")
            .arg(&at)
            .args(["fleet", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        rows(&json(&out))
    };
    let local = fleet_at(&[]);
    assert!(local.iter().all(|r| r["kind"] != "remote"), "{local:?}");
    let remote = fleet_at(&["--remote"]);
    let names: Vec<&str> = remote
        .iter()
        .filter(|r| r["kind"] == "remote")
        .map(|r| r["where"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "origin/by-hand",
            "origin/main",
            "origin/shipped",
            "origin/side",
            "origin/waiting"
        ]
    );
    assert_eq!(row(&remote, "origin/side")["iteration"], 1);
    // A new iteration on the origin shows only after a fetch.
    origin
        .goal_in(&wt)
        .args(["iterate", "-m", "tried another thing"])
        .assert()
        .success();
    assert_eq!(row(&fleet_at(&["--remote"]), "origin/side")["iteration"], 1);
    clone.git_in(&at, &["fetch", "-q"]);
    assert_eq!(row(&fleet_at(&["--remote"]), "origin/side")["iteration"], 2);
}

#[test]
fn iterate_records_its_verdict_and_fleet_flags_stagnation() {
    let repo = Repo::new();
    repo.init_goal(&["it works (verify: `sh t.sh`)"]);
    for n in 1..=3 {
        repo.ok(&["iterate", "-m", &format!("looked at it, attempt {n}")]);
        let want = if n < 3 { "progress" } else { "stagnant" };
        assert_eq!(
            repo.trailer("HEAD", "Goal-Verdict").as_deref(),
            Some(want),
            "{n}"
        );
    }
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert!(v.to_string().contains("stagnant"), "{v}");
    let now = rows(&fleet(&repo, &[]));
    assert_eq!(now[0]["flags"], serde_json::json!(["stagnant"]), "{now:?}");
    // Escalation: the goal is blocked and the tip says so.
    let mut code = 0;
    for n in 4..=6 {
        let out = repo
            .goal()
            .args(["iterate", "-m", &format!("looked again, attempt {n}")])
            .output()
            .unwrap();
        code = out.status.code().unwrap();
        if code == 1 {
            break;
        }
    }
    assert_eq!(code, 1, "never escalated");
    let now = rows(&fleet(&repo, &[]));
    assert_eq!(now[0]["status"], "blocked");
    assert_eq!(
        now[0]["flags"],
        serde_json::json!(["escalated", "blocked"]),
        "{now:?}"
    );
}

#[test]
fn fleet_shows_the_active_run_and_none_after_it() {
    let repo = Repo::new();
    repo.test_script("t.sh", 1, 0);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "t"]);
    repo.init_goal(&["it works (verify: `sh t.sh`)"]);
    let seen = repo.home().join("fleet-during-run.json");
    let agent = repo.home().join("agent.sh");
    std::fs::write(
        &agent,
        format!(
            "#!/bin/sh\ncat >/dev/null\ngoal fleet --json > '{}'\necho looked\n",
            seen.display()
        ),
    )
    .unwrap();
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--max-iterations", "1", "--", "sh"])
        .arg(&agent)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let during: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    let run = &during["goals"][0]["run"];
    assert_eq!(run["agent"], "sh", "{during}");
    assert!(!run["id"].as_str().unwrap().is_empty());
    assert!(run["since"].as_str().unwrap().ends_with('Z'));
    let run_id = repo.trailer("HEAD", "Goal-Run").unwrap();
    assert!(run_id.starts_with(run["id"].as_str().unwrap()), "{run_id}");
    assert_eq!(run["live"], true);
    // The run is over: the row names the run that made the tip (its `Goal-Run`), not running,
    // though a marker file may be left by a killed one.
    let made = serde_json::json!({"agent": "sh", "id": run["id"], "live": false});
    assert_eq!(rows(&fleet(&repo, &[]))[0]["run"], made);
    std::fs::write(
        repo.path().join(".git/goal/run.json"),
        r#"{"agent":"x","id":"y","since":"z","pid":1}"#,
    )
    .unwrap();
    assert_eq!(rows(&fleet(&repo, &[]))[0]["run"], made);
}

/// Lines of a file that are whole JSON objects.
fn ledger_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn two_branches_that_changed_the_same_goal_merge_without_conflict() {
    let repo = Repo::new();
    repo.write("tests/a.sh", &work_script(2, "src/a.txt"));
    repo.write("tests/b.sh", &work_script(3, "src/b.txt"));
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "tests"]);
    repo.ok(&["hooks", "install"]);
    repo.goal()
        .args(["init", "ship it"])
        .args(["-c", "a works (verify: `sh tests/a.sh`)"])
        .args(["-c", "b works (verify: `sh tests/b.sh`)"])
        .assert()
        .success();
    repo.git(&["checkout", "-q", "-b", "left"]);
    repo.write("src/a.txt", "a\n");
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "fixed a"]);
    repo.ok(&["iterate", "-m", "cleaned a"]);
    let left_goal = repo.goal_md();
    let left_ledger = ledger_lines(&repo.read(".agents/goal/evidence.jsonl"));
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "right"]);
    repo.ok(&["criteria", "add", "c works (verify: `sh tests/b.sh`)"]);
    repo.write("src/b.txt", "b\n");
    repo.ok(&["verify", "-c", "2"]);
    repo.ok(&["iterate", "-m", "fixed b"]);
    let right_ledger = ledger_lines(&repo.read(".agents/goal/evidence.jsonl"));
    repo.git(&["checkout", "-q", "left"]);
    assert!(left_goal.contains("- [x] a works"), "{left_goal}");

    let out = repo.git_output(&["merge", "-q", "--no-edit", "right"]);
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    assert_eq!(repo.status_porcelain(), "");
    let md = repo.goal_md();
    assert!(!md.contains("<<<<<<<"), "{md}");
    assert!(
        !md.contains("[x]"),
        "ticks are cleared until re-verified: {md}"
    );
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    let texts: Vec<&str> = v["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "a works (verify: `sh tests/a.sh`)",
            "b works (verify: `sh tests/b.sh`)",
            "c works (verify: `sh tests/b.sh`)"
        ],
        "{v}"
    );
    assert_eq!(v["iteration"], 2, "{v}");
    assert!(md.contains("### Iteration 1\n- fixed a"), "{md}");
    assert!(md.contains("### Iteration 2\n- cleaned a"), "{md}");
    assert!(md.contains("### Iteration 3\n- fixed b"), "{md}");
    assert_eq!(v["ledger"]["verifies"], true, "{v}");

    // The ledgers joined byte for byte, then a merge line chaining both sides.
    let merged = ledger_lines(&repo.read(".agents/goal/evidence.jsonl"));
    assert_eq!(merged.len(), left_ledger.len() + right_ledger.len() + 1);
    assert_eq!(merged[..left_ledger.len()], left_ledger[..]);
    assert_eq!(
        merged[left_ledger.len()..merged.len() - 1],
        right_ledger[..]
    );
    let last: serde_json::Value = serde_json::from_str(merged.last().unwrap()).unwrap();
    assert_eq!(last["kind"], "merge");
    let hash = |l: &str| serde_json::from_str::<serde_json::Value>(l).unwrap()["hash"].clone();
    assert_eq!(
        last["parents"],
        serde_json::json!([
            hash(left_ledger.last().unwrap()),
            hash(right_ledger.last().unwrap())
        ])
    );
    // Every reader accepts the chain: verify appends, check ticks, the hooks let iterate commit,
    // log and audit see an unbroken chain.
    repo.ok(&["verify"]);
    assert!(
        repo.goal_md().matches("[x]").count() == 3,
        "{}",
        repo.goal_md()
    );
    repo.ok(&["iterate", "-m", "verified after the merge"]);
    assert!(
        !repo
            .log_flags()
            .iter()
            .flatten()
            .any(|f| f == "broken-evidence-chain")
    );
    repo.ok(&["done"]);
    assert!(!repo.path().join(".gitattributes").exists());
    let attributes = repo.read(".git/info/attributes");
    assert!(
        attributes.contains("/.agents/goal/GOAL.md merge=goal"),
        "{attributes}"
    );
    assert!(
        repo.git(&["config", "merge.goal.driver"])
            .contains("merge-driver %O %A %B %P")
    );
    repo.assert_fsck();
}

#[test]
fn two_different_goals_conflict_with_markers() {
    let repo = Repo::new();
    repo.ok(&["hooks", "install"]);
    repo.git(&["checkout", "-q", "-b", "x"]);
    repo.init_goal(&["x works (verify: `sh x.sh`)"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "y"]);
    repo.goal()
        .args(["init", "another goal", "-c", "y works (verify: `sh y.sh`)"])
        .assert()
        .success();
    let out = repo.git_output(&["merge", "--no-edit", "x"]);
    assert!(!out.status.success(), "{}", stdout(&out));
    let md = repo.goal_md();
    assert!(md.contains("<<<<<<< ") && md.contains(">>>>>>> "), "{md}");
    assert!(
        repo.git(&["status", "--porcelain"])
            .contains("AA .agents/goal/GOAL.md")
    );
    repo.git(&["merge", "--abort"]);
    // Uninstall takes the driver away again.
    repo.ok(&["hooks", "uninstall"]);
    assert!(
        !repo.exists(".git/info/attributes")
            || !repo.read(".git/info/attributes").contains("merge=goal")
    );
    assert!(
        !repo
            .git_output(&["config", "merge.goal.driver"])
            .status
            .success()
    );
}
