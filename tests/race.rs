//! `goal run --race N` with scripted racers: one shell script as the custom `-- CMD` of every
//! racer, which tells them apart by their worktree's name (`say-hello-1`, `say-hello-2`) and
//! waits on the other's marker files where the order of events matters. The real git CLI is the
//! referee: branches, worktrees, the starting branch.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::stand_in::project;
use crate::common::{Repo, json, stderr, stdout};
use crate::run::{code, explain};

const CRITERION: &str = "hello.txt exists and the test passes (verify: `sh test.sh`)";
const PROVE: &str = "echo hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\necho 'Wrote hello.txt; the test passes'";

/// A repository with the test script and no goal yet.
fn bare_project() -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo
}

/// The racers' script: `$W` is the racer's worktree name, `$R` its number, `$S` its own state
/// folder (outside the worktree, holding `pid`), `$T` the folder of all of them.
fn racers(repo: &Repo, body: &str) -> String {
    let path = repo.home().join("racer.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nT='{}'\nW=$(basename \"$PWD\"); R=${{W##*-}}; S=\"$T/$W\"; mkdir -p \"$S\"\necho $$ > \"$S/pid\"\ncat > /dev/null\n{body}\n",
            repo.home().display()
        ),
    )
    .unwrap();
    path.display().to_string()
}

/// Wait (bounded) in a script until `file` exists.
fn until(file: &str) -> String {
    format!("n=0; until [ -f \"{file}\" ] || [ $n -gt 1200 ]; do sleep 0.05; n=$((n+1)); done")
}

fn race(repo: &Repo, flags: &[&str], script: &str) -> Output {
    repo.goal()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .arg("run")
        .args(flags)
        .args(["--", "sh", script])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap()
}

fn pid_of(repo: &Repo, racer: &str) -> String {
    std::fs::read_to_string(repo.home().join(racer).join("pid"))
        .unwrap()
        .trim()
        .to_string()
}

fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        // A zombie waiting for its reaper is dead already.
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// What a race must never change, as git sees it: the refs, the worktrees, the working files.
fn git_state(repo: &Repo) -> String {
    format!(
        "{}\n{}\n{}",
        repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]),
        repo.git(&["worktree", "list", "--porcelain"]),
        repo.status_porcelain()
    )
}

/// The subjects of a branch's own commits (not on main), newest first.
fn subjects(repo: &Repo, branch: &str) -> Vec<String> {
    repo.git(&["log", "--format=%s", &format!("main..{branch}")])
        .lines()
        .map(str::to_string)
        .collect()
}

fn worktrees(repo: &Repo) -> Vec<PathBuf> {
    repo.git(&["worktree", "list", "--porcelain"])
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .map(PathBuf::from)
        .collect()
}

#[test]
fn the_first_racer_proven_done_wins_and_the_other_keeps_its_work_on_its_branch() {
    let repo = bare_project();
    let main_before = repo.git(&["rev-parse", "main"]);
    // Racer 1 proves the goal once racer 2 has recorded an iteration and is in its second turn,
    // which writes a file and never ends by itself.
    let script = racers(
        &repo,
        &format!(
            "if [ $R = 1 ]; then\n{}\n{PROVE}\nelif [ \"$GOAL_ITERATION\" = 1 ]; then\necho one > part1.txt\necho 'did part one'\nelse\necho two > part2.txt\ntouch \"$S/turn2\"\nsleep 60\nfi",
            until("$T/say-hello-2/turn2")
        ),
    );
    let out = race(
        &repo,
        &["--json", "Say hello", "-c", CRITERION, "--race", "2"],
        &script,
    );
    assert_eq!(code(&out), 0, "{}", explain(&out));
    // The stream's one line: the race event, with the racers and the winner.
    assert_eq!(stdout(&out).lines().count(), 1, "{}", stdout(&out));
    let summary = json(&out);
    assert_eq!(summary["event"], "race", "{summary}");
    assert_eq!(summary["winner"], "goal/say-hello-1", "{summary}");
    let racers = summary["racers"].as_array().unwrap();
    assert_eq!(racers.len(), 2);
    for r in racers {
        let mut keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        for key in [
            "agent",
            "branch",
            "diff",
            "iterations",
            "outcome",
            "proven",
            "total",
            "turns",
            "usage",
            "winner",
            "worktree",
        ] {
            assert!(keys.contains(&key), "{key} missing in {r}");
        }
        for key in ["files", "insertions", "deletions"] {
            assert!(r["diff"][key].is_u64(), "{r}");
        }
        assert_eq!(r["agent"], "sh");
    }
    let (won, lost) = (&racers[0], &racers[1]);
    assert_eq!(
        (&won["branch"], &won["winner"], &won["outcome"]),
        (
            &serde_json::json!("goal/say-hello-1"),
            &serde_json::json!(true),
            &serde_json::json!("complete")
        ),
        "{won}"
    );
    assert_eq!((&won["proven"], &won["total"]), (&1.into(), &1.into()));
    assert_eq!(
        won["diff"],
        serde_json::json!({"files": 1, "insertions": 1, "deletions": 0})
    );
    assert_eq!(
        (&lost["branch"], &lost["winner"], &lost["outcome"]),
        (
            &serde_json::json!("goal/say-hello-2"),
            &serde_json::json!(false),
            &serde_json::json!("stopped")
        ),
        "{lost}"
    );
    assert_eq!(lost["reason"], "stopped: goal/say-hello-1 won the race");
    // Two turns, two iterations: the second turn was cut short and recorded.
    assert_eq!(
        (&lost["turns"], &lost["iterations"]),
        (&2.into(), &2.into())
    );
    assert_eq!((&lost["proven"], &lost["total"]), (&0.into(), &1.into()));
    assert_eq!(lost["diff"]["files"], 2);

    // git as the referee. The starting branch never moved, and nothing is left in it.
    assert_eq!(repo.git(&["rev-parse", "main"]), main_before);
    assert_eq!(
        repo.git(&["symbolic-ref", "HEAD"]).trim(),
        "refs/heads/main"
    );
    assert_eq!(repo.status_porcelain(), "");
    assert!(!repo.exists(".agents/goal/GOAL.md"));
    // Each branch starts with its own init commit; the winner's ends complete.
    let winner = subjects(&repo, "goal/say-hello-1");
    assert_eq!(
        winner.last().unwrap(),
        "goal: init \"Say hello\"",
        "{winner:?}"
    );
    assert!(
        winner.contains(&"goal: iteration 1: turn 1: Wrote hello.txt; the test passes".into()),
        "{winner:?}"
    );
    assert!(
        (0..winner.len()).any(|i| repo
            .trailer(&format!("goal/say-hello-1~{i}"), "Goal-Status")
            .as_deref()
            == Some("complete")),
        "{winner:?}"
    );
    // The loser's iterations are on its branch, the turn cut short among them, its file in it.
    assert_eq!(
        subjects(&repo, "goal/say-hello-2"),
        [
            "goal: iteration 2: turn 2: cut short: goal/say-hello-1 won the race",
            "goal: iteration 1: turn 1: did part one",
            "goal: init \"Say hello\"",
        ]
    );
    assert_eq!(repo.git(&["show", "goal/say-hello-2:part2.txt"]), "two\n");
    // No worktree is left, and the loser's agent (asleep in its turn) is gone.
    assert_eq!(worktrees(&repo).len(), 1, "{:?}", worktrees(&repo));
    for r in racers {
        assert!(!Path::new(r["worktree"].as_str().unwrap()).exists(), "{r}");
    }
    assert!(!alive(&pid_of(&repo, "say-hello-2")));
    // The racers' turn logs stay in the repository.
    let runs = repo.path().join(".git/goal/runs");
    for r in racers {
        let run = r["run"].as_str().unwrap();
        assert!(runs.join(run).join("turn-1.log").is_file(), "{run}");
    }
    repo.assert_fsck();
}

#[test]
fn keep_worktrees_keeps_each_racer_s_worktree_and_the_winner_merges() {
    // An active goal: each racer continues it.
    let repo = project();
    let main_before = repo.git(&["rev-parse", "main"]);
    let script = racers(
        &repo,
        &format!(
            "if [ $R = 1 ]; then\n{}\n{PROVE}\nelse\nsleep 60\nfi",
            until("$T/say-hello-2/pid")
        ),
    );
    let out = race(&repo, &["--race", "2", "--keep-worktrees"], &script);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("branch") && l.contains("outcome")),
        "{text}"
    );
    assert!(text.contains("\n  git merge goal/say-hello-1\n"), "{text}");
    let kept = worktrees(&repo);
    assert_eq!(kept.len(), 3, "{kept:?}");
    for (branch, wt) in [
        ("goal/say-hello-1", "say-hello-1"),
        ("goal/say-hello-2", "say-hello-2"),
    ] {
        let path = kept
            .iter()
            .find(|p| p.ends_with(wt))
            .unwrap_or_else(|| panic!("{wt} not in {kept:?}"));
        assert!(
            text.contains(&format!(
                "worktree kept: {} ({branch}): --keep-worktrees",
                path.display()
            )),
            "{text}"
        );
        // Nothing uncommitted in either: the turn cut short was recorded.
        let status = repo.git_in(path, &["status", "--porcelain"]);
        assert_eq!(String::from_utf8_lossy(&status.stdout), "", "{wt}");
        let head = repo.git_in(path, &["symbolic-ref", "HEAD"]);
        assert_eq!(
            String::from_utf8_lossy(&head.stdout).trim(),
            format!("refs/heads/{branch}")
        );
    }
    assert_eq!(
        subjects(&repo, "goal/say-hello-2"),
        ["goal: iteration 1: turn 1: cut short: goal/say-hello-1 won the race"]
    );
    assert_eq!(repo.git(&["rev-parse", "main"]), main_before);
    // The winner's branch is left to merge: the line the summary printed works.
    repo.git(&["merge", "-q", "goal/say-hello-1"]);
    assert_eq!(repo.read("hello.txt"), "hello\n");
    assert!(!repo.exists(".agents/goal/GOAL.md"));
}

#[test]
fn a_worktree_holding_uncommitted_work_is_kept_and_named() {
    let repo = project();
    // Racer 1 blocks its goal, then leaves a file nobody commits; racer 2 proves the goal after.
    let script = racers(
        &repo,
        &format!(
            "if [ $R = 1 ]; then\ngoal block --reason 'needs a person' >/dev/null\necho draft > scratch.txt\ntouch \"$S/blocked\"\necho 'blocked'\nelse\n{}\n{PROVE}\nfi",
            until("$T/say-hello-1/blocked")
        ),
    );
    let out = race(&repo, &["--race", "2"], &script);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let text = stdout(&out);
    let wts = worktrees(&repo);
    assert_eq!(wts.len(), 2, "only the one with uncommitted work: {wts:?}");
    let kept = &wts[1];
    assert!(kept.ends_with("say-hello-1"), "{kept:?}");
    assert_eq!(
        std::fs::read_to_string(kept.join("scratch.txt")).unwrap(),
        "draft\n"
    );
    assert!(
        text.contains(&format!(
            "worktree kept: {} (goal/say-hello-1): it holds uncommitted work",
            kept.display()
        )),
        "{text}"
    );
    assert!(text.contains("git merge goal/say-hello-2"), "{text}");
}

#[test]
fn the_summary_says_each_racer_s_end_once() {
    let repo = project();
    // Neither racer proves the goal: each run ends on its budget, its reason shown as it ends.
    let script = racers(&repo, "echo 'did nothing'");
    let out = race(&repo, &["--race", "2", "--max-iterations", "1"], &script);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    let text = stdout(&out);
    for branch in ["goal/say-hello-1", "goal/say-hello-2"] {
        let ends = text
            .lines()
            .filter(|l| l.contains(&format!("{branch}: --max-iterations 1 reached")))
            .count();
        assert_eq!(ends, 1, "{branch}'s end said {ends} times:\n{text}");
    }
    assert!(text.contains("no winner:"), "{text}");
}

/// Start a race in the background; its stdout lines come on the channel.
fn start_race(
    repo: &Repo,
    script: &str,
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    let mut child = repo
        .goal_std()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args(["run", "--race", "2", "--", "sh", script])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (sender, lines) = std::sync::mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    (child, lines)
}

/// Wait (bounded) until `ready` holds.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Wait for the line that says the race took a Ctrl-C; every line read goes to `seen`.
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, words: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no line with {words:?} in {seen:?}"));
        seen.push(line.clone());
        if line.contains(words) {
            return;
        }
    }
}

fn exit_of(mut child: std::process::Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the race did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt(child: &std::process::Child) {
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn two_ctrl_c_stop_every_racer_and_leave_no_agent_alive() {
    let repo = project();
    let main_before = repo.git(&["rev-parse", "main"]);
    // Each racer's agent starts a background sleeper of its own, then hangs.
    let script = racers(&repo, "sleep 60 &\necho $! > \"$S/sleeper\"\nsleep 60");
    let (child, lines) = start_race(&repo, &script);
    let files = |name: &str| ["say-hello-1", "say-hello-2"].map(|r| repo.home().join(r).join(name));
    wait_for("both agents and their sleepers", || {
        files("sleeper").iter().all(|f| f.exists())
    });
    let mut seen = Vec::new();
    interrupt(&child);
    wait_for_line(&lines, "Ctrl-C:", &mut seen);
    interrupt(&child);
    assert_eq!(exit_of(child), 130, "{seen:?}");
    for file in files("pid").iter().chain(files("sleeper").iter()) {
        let pid = std::fs::read_to_string(file).unwrap();
        assert!(!alive(&pid), "{} ({pid}) outlived the race", file.display());
    }
    // Killed turns are not recorded; the worktrees held nothing, so they are gone.
    assert_eq!(worktrees(&repo).len(), 1);
    assert_eq!(repo.git(&["rev-parse", "main"]), main_before);
    for branch in ["goal/say-hello-1", "goal/say-hello-2"] {
        assert_eq!(subjects(&repo, branch), Vec::<String>::new(), "{branch}");
    }
}

#[test]
fn one_ctrl_c_lets_every_racer_finish_and_record_its_turn() {
    let repo = project();
    // Each agent waits for the test's go-ahead, then writes its file and ends its turn.
    let script = racers(
        &repo,
        &format!(
            "{}\necho \"$W\" > \"$W.txt\"\necho \"finished $W\"",
            until("$T/go")
        ),
    );
    let (child, lines) = start_race(&repo, &script);
    wait_for("both agents", || {
        ["say-hello-1", "say-hello-2"]
            .iter()
            .all(|r| repo.home().join(r).join("pid").exists())
    });
    let mut seen = Vec::new();
    interrupt(&child);
    wait_for_line(&lines, "Ctrl-C:", &mut seen);
    std::fs::write(repo.home().join("go"), "").unwrap();
    assert_eq!(exit_of(child), 130, "{seen:?}");
    for (branch, racer) in [
        ("goal/say-hello-1", "say-hello-1"),
        ("goal/say-hello-2", "say-hello-2"),
    ] {
        let subjects = subjects(&repo, branch);
        assert!(
            subjects
                .last()
                .is_some_and(|s| s == &format!("goal: iteration 1: turn 1: finished {racer}")),
            "{branch}: {subjects:?}"
        );
        assert_eq!(
            repo.git(&["show", &format!("{branch}:{racer}.txt")]),
            format!("{racer}\n")
        );
    }
    assert_eq!(worktrees(&repo).len(), 1);
}

#[test]
fn bad_race_input_exits_two_and_changes_nothing() {
    let repo = project();
    let before = git_state(&repo);
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["run", "--race", "1", "--", "sh", "x"],
            2,
            "2 racers or more",
        ),
        (
            &["run", "--race", "0", "--", "sh", "x"],
            2,
            "2 racers or more",
        ),
        (
            &["run", "--race", "two", "--", "sh", "x"],
            2,
            "not a number",
        ),
        (&["run", "--race", "--", "sh", "x"], 2, "--race"),
        (&["run", "--race"], 2, "--race"),
        (&["run", "--race", "2"], 2, "no agent"),
        (&["run", "--keep-worktrees", "--", "sh", "x"], 2, "--race"),
        (
            &["run", "--race", "2", "--agent", "pi", "--", "sh", "x"],
            2,
            "cannot be used with",
        ),
        // Refused as each racer would refuse it, before any worktree is made.
        (
            &["run", "Another goal", "--race", "2", "--", "sh", "x"],
            1,
            "another goal is active",
        ),
    ];
    for (args, want, words) in cases {
        let out = repo.goal().args(*args).output().unwrap();
        assert_eq!(code(&out), *want, "{args:?}: {}", explain(&out));
        assert!(stderr(&out).contains(words), "{args:?}: {}", stderr(&out));
        assert_eq!(git_state(&repo), before, "{args:?} changed something");
        assert!(!repo.path().join(".git/goal/race").exists(), "{args:?}");
    }
    // Without a commit to start from.
    let empty = Repo::empty();
    let out = empty
        .goal()
        .args(["run", "Say hello", "--race", "2", "--", "sh", "x"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(stderr(&out).contains("no commit"), "{}", stderr(&out));
    assert_eq!(worktrees(&empty).len(), 1);
    assert_eq!(empty.git(&["for-each-ref"]), "");
}

#[test]
fn racers_take_the_presets_in_turn_each_with_its_own_agent_and_usage() {
    let repo = project();
    // Stand-ins for two agent CLIs on PATH: each saves its command line; claude proves the goal
    // once codex is in its turn and reports its usage as Claude Code does; codex never ends.
    let bin = repo.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let head = format!(
        "#!/bin/sh\nT='{}'\nW=$(basename \"$PWD\"); S=\"$T/$W\"; mkdir -p \"$S\"\necho \"$0 $*\" > \"$S/argv\"\n",
        repo.home().display()
    );
    std::fs::write(
        bin.join("claude"),
        format!(
            "{head}cat > /dev/null\n{}\necho hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\necho '{{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Wrote hello.txt\",\"total_cost_usd\":0.25,\"usage\":{{\"input_tokens\":100,\"output_tokens\":20}}}}'\n",
            until("$T/say-hello-codex/argv")
        ),
    )
    .unwrap();
    std::fs::write(bin.join("codex"), format!("{head}sleep 60\n")).unwrap();
    for name in ["claude", "codex"] {
        let path = bin.join(name);
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).unwrap();
    }
    let out = repo
        .goal()
        .env("PATH", crate::common::stand_in::path_with(&[&bin]))
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args([
            "--json", "run", "--race", "2", "--agent", "claude", "--agent", "codex",
        ])
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let summary = json(&out);
    assert_eq!(summary["winner"], "goal/say-hello-claude", "{summary}");
    let racers = summary["racers"].as_array().unwrap();
    let fields = |r: &serde_json::Value| (r["agent"].clone(), r["branch"].clone());
    assert_eq!(
        racers.iter().map(fields).collect::<Vec<_>>(),
        [
            ("claude".into(), "goal/say-hello-claude".into()),
            ("codex".into(), "goal/say-hello-codex".into()),
        ]
    );
    assert_eq!(
        racers[0]["usage"],
        serde_json::json!({"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.25})
    );
    assert_eq!(
        racers[1]["usage"],
        serde_json::json!({"input_tokens": null, "output_tokens": null, "cost_usd": null})
    );
    // Each racer ran its own preset's command line, in its own worktree.
    let argv = |racer: &str| std::fs::read_to_string(repo.home().join(racer).join("argv")).unwrap();
    assert!(
        argv("say-hello-claude").contains("claude -p --output-format stream-json"),
        "{}",
        argv("say-hello-claude")
    );
    assert!(
        argv("say-hello-codex").contains("codex exec --json"),
        "{}",
        argv("say-hello-codex")
    );
}
