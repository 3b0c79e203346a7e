//! Bounded pin runs: a pin past `goal.pinTimeout` or `goal.pinMemory` is cut off with every
//! process of its tree (children that called `setsid` included), recorded with the reason, and
//! nothing of it is left running; memory is what the tree uses, never what it reserves; the red
//! side counts a cut-off red only next to a quick green; the settings and where they come from.

use std::time::{Duration, Instant};

use crate::common::{EVIDENCE, GOAL, Repo, commit_all, json, last_record, stderr, stdout};

/// A python3 one-liner that starts a child (in a session of its own when `setsid`) which writes
/// its pid to `pid_file` and then allocates 8 MiB every 20 ms up to 512 MiB; the parent waits.
fn allocating_child(pid_file: &str, setsid: bool) -> Vec<String> {
    let child = format!(
        "import os,time\n{}open('{pid_file}','w').write(str(os.getpid()))\nb=[]\nfor i in range(64):\n    b.append(bytearray(8<<20)); time.sleep(0.02)\nprint('survived')",
        if setsid { "os.setsid()\n" } else { "" }
    );
    let parent =
        format!("import subprocess,sys\nsubprocess.Popen([sys.executable,'-c',{child:?}]).wait()");
    vec!["python3".into(), "-c".into(), parent]
}

/// Whether process `pid` is running (neither gone nor a zombie).
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit_once(')').map(|(_, rest)| rest.trim().to_string()))
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

fn goal_with_bounds(timeout: &str, memory: &str) -> Repo {
    let repo = Repo::new();
    repo.init_goal(&["the thing works"]);
    repo.git(&["config", "goal.pinTimeout", timeout]);
    repo.git(&["config", "goal.pinMemory", memory]);
    repo
}

/// `goal verify --check -c 1 -- ARGV` with `probe` (`pss` forces polling; else a cgroup where
/// one can be made): its output.
fn verify(repo: &Repo, probe: &str, argv: &[String]) -> std::process::Output {
    repo.goal()
        .args(["verify", "--check", "-c", "1", "--"])
        .args(argv)
        .env("GOAL_PIN_MEMORY_PROBE", probe)
        .output()
        .unwrap()
}

#[test]
fn a_pin_that_sleeps_past_its_time_bound_is_cut_off_with_its_child() {
    let repo = goal_with_bounds("1", "4096");
    let pid_file = repo.path().join("sleeper.pid");
    let sleeper = format!(
        "import subprocess,time\np=subprocess.Popen(['sleep','60'])\nopen({:?},'w').write(str(p.pid))\ntime.sleep(60)",
        pid_file.to_string_lossy()
    );
    let clock = Instant::now();
    let out = verify(&repo, "", &["python3".into(), "-c".into(), sleeper]);
    assert!(
        clock.elapsed() < Duration::from_secs(20),
        "{:?}",
        clock.elapsed()
    );
    assert_ne!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("half its time bound (goal.pinTimeout: 1 s)"),
        "{err}"
    );
    assert!(
        err.contains("was cut off at its time bound of 1 s"),
        "{err}"
    );
    assert!(err.contains("is inconclusive"), "{err}");
    let record = last_record(&repo);
    assert_eq!(record["cut_off"]["reason"], "timeout", "{record}");
    assert_eq!(record["cut_off"]["setting"], "goal.pinTimeout");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(!running(&pid), "the pin's child {pid} is still running");
    assert!(repo.goal_md().contains("- [ ] the thing works"));
}

#[test]
fn a_child_that_allocates_past_the_memory_bound_is_cut_off_with_the_reason() {
    for probe in ["pss", "cgroup"] {
        for setsid in [false, true] {
            let repo = goal_with_bounds("60", "48");
            let pid_file = repo.path().join("child.pid");
            let argv = allocating_child(&pid_file.to_string_lossy(), setsid);
            let out = verify(&repo, probe, &argv);
            let err = stderr(&out);
            let what = format!("{probe}, setsid {setsid}: {err}");
            assert_ne!(out.status.code(), Some(0), "{what}");
            assert!(!stdout(&out).contains("survived"), "{what}");
            assert!(
                err.contains("was cut off at its memory bound of 48 MiB"),
                "{what}"
            );
            let record = last_record(&repo);
            assert_eq!(record["cut_off"]["reason"], "memory", "{what}");
            assert_eq!(record["cut_off"]["bound"], "48 MiB", "{what}");
            let measured = record["cut_off"]["measured"].as_str().unwrap().to_string();
            if probe == "pss" {
                assert_eq!(measured, "pss", "{what}");
            }
            let pid = std::fs::read_to_string(&pid_file).unwrap();
            assert!(!running(&pid), "{what}: the child {pid} is still running");
        }
    }
}

#[test]
fn a_child_that_reserves_eight_times_the_bound_without_touching_it_runs_on() {
    for probe in ["pss", "cgroup"] {
        let repo = goal_with_bounds("60", "48");
        let reserve =
            "import mmap,time\nm=mmap.mmap(-1,384<<20)\nm[0]=1\ntime.sleep(0.5)\nprint('done')";
        let out = verify(
            &repo,
            probe,
            &["python3".into(), "-c".into(), reserve.into()],
        );
        assert_eq!(out.status.code(), Some(0), "{probe}: {}", stderr(&out));
        assert!(last_record(&repo).get("cut_off").is_none(), "{probe}");
        assert!(repo.goal_md().contains("- [x] the thing works"), "{probe}");
    }
}

#[test]
fn a_red_run_cut_off_is_red_only_beside_a_quick_green() {
    let repo = Repo::new();
    repo.init_goal(&["the feature is there (verify: `python3 tests/t.py`)"]);
    // The code before the goal makes the test hang; the goal's code makes it pass at once.
    repo.write(
        "tests/t.py",
        "import os,time\nif not os.path.exists('feature.py'):\n    time.sleep(60)\nprint('1 passed in 0.01s')\n",
    );
    repo.write("feature.py", "HERE = True\n");
    repo.git(&["config", "goal.pinTimeout", "3"]);
    // No green yet: the bound may have ended it, not the code.
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(json(&out)["outcome"], "inconclusive");
    assert_eq!(json(&out)["record"]["cut_off"]["reason"], "timeout");
    let why = json(&out)["record"]["red"]["environment"].to_string();
    assert!(why.contains("no passing run of this pin"), "{why}");
    repo.ok(&["verify", "-c", "1"]);
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("counted red"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("as it should (red)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(last_record(&repo)["cut_off"]["reason"], "timeout");
}

/// The old exam's run (the base's test on the goal's code) hangs past the time bound while the
/// clean green is quick: a test that failed on the base is still failing; one that passed there
/// leaves the old exam inconclusive. Either way `goal done` refuses, the inconclusive one naming
/// `goal.pinTimeout`, the run recorded cut off and nothing of it left running.
#[test]
fn an_old_exam_cut_off_refuses_done() {
    for base_fails in [false, true] {
        let repo = Repo::new();
        let pid_file = repo.home().join("old-exam.pid");
        // The base's test: on the goal's code it hangs (with a child); on the base's it passes,
        // or fails.
        let end = if base_fails {
            "print('1 failed in 0.01s')\nraise SystemExit(1)\n"
        } else {
            "print('1 passed in 0.01s')\n"
        };
        let base_test = format!(
            "import subprocess,time\nif 'new' in open('feature.py').read():\n    p = subprocess.Popen(['sleep', '60'])\n    open({:?}, 'w').write(str(p.pid))\n    time.sleep(60)\n{end}",
            pid_file.to_string_lossy()
        );
        repo.write("feature.py", "MODE = 'old'\n");
        repo.write("tests/t.py", &base_test);
        commit_all(&repo, "the feature, its test");
        repo.init_goal(&["the feature is new (verify: `python3 tests/t.py`)"]);
        repo.git(&["config", "goal.pinTimeout", "4"]);
        repo.write(
            "tests/t.py",
            "if 'new' not in open('feature.py').read():\n    print('1 failed in 0.01s')\n    raise SystemExit(1)\nprint('1 passed in 0.01s')\n",
        );
        repo.write("feature.py", "MODE = 'new'\n");
        repo.ok(&["verify", "-c", "1"]);
        repo.ok(&["iterate", "-m", "the new feature"]);
        let clock = Instant::now();
        let out = repo.goal().args(["done"]).output().unwrap();
        let err = stderr(&out);
        let what = format!("base fails: {base_fails}\n{err}");
        assert!(clock.elapsed() < Duration::from_secs(60), "{what}");
        assert_eq!(out.status.code(), Some(1), "{what}");
        if base_fails {
            assert!(err.contains("still fails on the final code"), "{what}");
            assert!(err.contains("within half the time bound"), "{what}");
        } else {
            assert!(err.contains("its old exam is inconclusive"), "{what}");
            assert!(err.contains("goal.pinTimeout"), "{what}");
        }
        let old: Vec<serde_json::Value> = repo
            .read(EVIDENCE)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["exam"] == "old")
            .collect();
        assert_eq!(old.len(), 1, "{what}");
        assert_eq!(old[0]["cut_off"]["reason"], "timeout", "{what}");
        assert_eq!(old[0]["cut_off"]["setting"], "goal.pinTimeout", "{what}");
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        assert!(
            !running(&pid),
            "{what}: the old exam's child {pid} is still running"
        );
        assert!(
            repo.goal_md().contains("- [x] the feature is new"),
            "{what}"
        );
        assert!(repo.exists(GOAL), "{what}");
    }
}

/// A goal that fixes a hang in the base's code: the red run and the base run are cut off at the
/// time bound while the clean green is quick, so both read as failing there (the old exam then
/// finds the base's test passing on the final code) and `goal done` completes, without a
/// `--confirm`: the bound is not held against the goal that removed what hit it.
#[test]
fn a_goal_that_fixes_a_hang_completes() {
    let repo = Repo::new();
    repo.write("feature.py", "MODE = 'old'\n");
    repo.write(
        "tests/t.py",
        "import time\nif 'new' not in open('feature.py').read():\n    time.sleep(60)\nprint('1 passed in 0.01s')\n",
    );
    commit_all(&repo, "the feature, its test");
    repo.init_goal(&["the feature answers at once (verify: `python3 tests/t.py`)"]);
    repo.git(&["config", "goal.pinTimeout", "4"]);
    repo.write("feature.py", "MODE = 'new'\n");
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "no more hang"]);
    let clock = Instant::now();
    let out = repo.goal().args(["done"]).output().unwrap();
    let err = stderr(&out);
    assert!(clock.elapsed() < Duration::from_secs(60), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    // The completion commit removes the goal's files: its parent holds the ledger.
    let ledger = repo.git(&["show", &format!("HEAD~1:{EVIDENCE}")]);
    let cut: Vec<serde_json::Value> = ledger
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["cut_off"]["reason"] == "timeout")
        .collect();
    assert!(!cut.is_empty(), "no run was cut off: {err}");
}

#[test]
fn goal_config_shows_each_bound_in_force_and_where_it_comes_from() {
    let repo = Repo::new();
    repo.init_goal(&["the thing works"]);
    let row = |key: &str| {
        let out = repo.goal().args(["config", "--json"]).output().unwrap();
        let rows = json(&out);
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == key)
            .cloned()
            .unwrap()
    };
    assert_eq!(row("goal.pinTimeout")["in_force"], "900");
    assert_eq!(row("goal.pinTimeout")["source"], "default");
    assert_eq!(row("goal.pinMemory")["source"], "default");
    let machine: u64 = row("goal.pinMemory")["in_force"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(machine > 0);
    repo.git(&["config", "goal.pinTimeout", "30"]);
    assert_eq!(row("goal.pinTimeout")["in_force"], "30");
    assert_eq!(row("goal.pinTimeout")["source"], "git config");
    // GOAL.md's decides, set as a person's change.
    repo.ok(&[
        "criteria",
        "surface",
        "--pin-timeout",
        "45",
        "--pin-memory",
        "512",
        "--confirm",
    ]);
    assert!(
        repo.goal_md().contains("pin_timeout: 45\n"),
        "{}",
        repo.goal_md()
    );
    assert_eq!(row("goal.pinTimeout")["in_force"], "45");
    assert_eq!(row("goal.pinTimeout")["source"], "GOAL.md");
    assert_eq!(row("goal.pinMemory")["in_force"], "512");
    let text = repo.goal().arg("config").output().unwrap();
    assert!(
        stdout(&text).contains("goal.pinTimeout = 45 (from GOAL.md)"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn a_bad_bound_exits_2_and_changes_nothing() {
    let repo = Repo::new();
    repo.init_goal(&["the thing works"]);
    let before = repo.read(GOAL);
    repo.refused(
        &["criteria", "surface", "--pin-timeout", "0", "--confirm"],
        2,
        &["--pin-timeout `0`: expected a whole number ≥ 1 (seconds)"],
    );
    repo.refused(
        &["criteria", "surface", "--pin-memory", "lots", "--confirm"],
        2,
        &["--pin-memory `lots`", "MiB"],
    );
    repo.git(&["config", "goal.pinMemory", "-5"]);
    repo.refused(
        &["verify", "-c", "1", "--", "true"],
        2,
        &[
            "git config goal.pinMemory is `-5`",
            "git config --unset goal.pinMemory",
        ],
    );
    assert_eq!(repo.read(GOAL), before);
    assert!(!repo.exists(crate::common::EVIDENCE));
}
