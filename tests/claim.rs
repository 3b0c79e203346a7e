//! `goal run --claim <remote>`: racers in separate clones (machines, as far as git can tell)
//! racing through a real git server on the loopback (`git daemon`, started and stopped here).
//! The racer is one scripted stand-in agent (the custom `-- CMD` of `goal run`'s other tests):
//! `ROLE=win` proves the goal once the losers have pushed work (`$T/<name>-2` markers), `ROLE=lose`
//! adds a note each turn and never proves it, `ROLE=slow` too but its second turn takes a minute. The server is the referee: the claim ref, the
//! branches pushed, their tips.

use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::git_server::{GitServer, scratch, stop};
use crate::common::{Repo, stderr};
use crate::run::{code, explain};

const GOAL: &str = "Say hello";
const CRITERION: &str = "hello.txt exists and the test passes (verify: `sh test.sh`)";

/// The project every racer starts from: the test script, committed, and no goal yet.
fn seed() -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo
}

/// The stand-in agent: `$ROLE`, `$NAME` and `$T` (the markers' folder) come from the test.
const RACER: &str = r#"cat > /dev/null
touch "$T/$NAME-$GOAL_ITERATION"
wait_for() { n=0; until [ -f "$1" ] || [ $n -gt 1200 ]; do sleep 0.05; n=$((n+1)); done; }
case "$ROLE" in
win)
  for other in $WAIT_FOR; do wait_for "$T/$other-2"; done
  echo "hello from $NAME" > hello.txt
  goal verify -c 1 >/dev/null 2>&1
  echo "Progress: wrote hello.txt, the test passes"
  ;;
lose)
  echo "turn $GOAL_ITERATION" >> "notes-$NAME.txt"
  sleep 0.1
  echo "Progress: added a note to notes-$NAME.txt"
  ;;
slow)
  echo "turn $GOAL_ITERATION" >> "notes-$NAME.txt"
  if [ "$GOAL_ITERATION" -ge 2 ]; then sleep 60; fi
  echo "Progress: added a note to notes-$NAME.txt"
  ;;
esac
"#;

fn racer_script(t: &Path) -> String {
    let path = t.join("racer.sh");
    std::fs::write(&path, RACER).unwrap();
    path.display().to_string()
}

/// `goal --json run "Say hello" -c … --claim origin -- sh racer.sh` in `clone`, started.
fn start(clone: &Repo, t: &Path, name: &str, role: &str, wait_for: &str, extra: &[&str]) -> Child {
    clone
        .goal_std()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .env("GOAL_CLAIM_POLL", "0.2")
        .env("T", t)
        .env("NAME", name)
        .env("ROLE", role)
        .env("WAIT_FOR", wait_for)
        .args(["--json", "run", GOAL, "-c", CRITERION, "--claim", "origin"])
        .args(["--max-time", "5m"])
        .args(if extra.is_empty() {
            &["--max-iterations", "40"][..]
        } else {
            extra
        })
        .args(["--", "sh", &racer_script(t)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The JSON events a run printed, one per line.
fn events(out: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn event<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .rev()
        .find(|e| e["event"] == name)
        .unwrap_or_else(|| panic!("no `{name}` event in {events:?}"))
}

/// A racer's end: its exit code, its stop event's name, and its race summary.
struct End {
    out: Output,
    stop: String,
    race: Value,
}

fn end(child: Child) -> End {
    let out = child.wait_with_output().unwrap();
    let all = events(&out);
    assert!(
        all.iter().any(|e| e["event"] == "race"),
        "{}",
        explain(&out)
    );
    let race = event(&all, "race").clone();
    let stop = all
        .iter()
        .rev()
        .filter_map(|e| e["event"].as_str())
        .find(|e| {
            [
                "done",
                "lost",
                "unpushed",
                "blocked",
                "budget",
                "error",
                "interrupted",
            ]
            .contains(e)
        })
        .unwrap_or_default()
        .to_string();
    End { out, stop, race }
}

fn branch_of(end: &End) -> String {
    end.race["racers"][0]["branch"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The clone's branch tip and the server's agree, and the clone holds nothing uncommitted.
fn assert_pushed(server: &GitServer, clone: &Repo, branch: &str) {
    let local = clone.git(&["rev-parse", branch]).trim().to_string();
    let remote = server.git(&["rev-parse", &format!("refs/heads/{branch}")]);
    assert_eq!(local, remote, "{branch} is not pushed as it is here");
    assert_eq!(
        clone.status_porcelain(),
        "",
        "uncommitted work in {branch}'s clone"
    );
}

#[test]
fn three_clones_race_through_a_git_server_one_claims_the_others_lose_with_their_work_pushed() {
    let seed = seed();
    let server = GitServer::start(&seed);
    let (_t, t) = scratch();
    let clones: Vec<Repo> = ["a", "b", "c"].iter().map(|n| server.clone(n)).collect();
    let children = vec![
        start(&clones[0], &t, "a", "win", "b c", &[]),
        start(&clones[1], &t, "b", "lose", "", &[]),
        start(&clones[2], &t, "c", "lose", "", &[]),
    ];
    let ends: Vec<End> = children.into_iter().map(end).collect();
    for e in &ends {
        assert_eq!(code(&e.out), 0, "{}", explain(&e.out));
    }
    let stops: Vec<&str> = ends.iter().map(|e| e.stop.as_str()).collect();
    assert_eq!(stops, ["done", "lost", "lost"]);
    let winner = branch_of(&ends[0]);
    assert!(winner.starts_with("goal/say-hello-sh-"), "{winner}");

    // One claim ref on the server, at the winner's complete commit.
    let claims = server.refs("refs/goal/won/");
    assert_eq!(claims.len(), 1, "{claims:?}");
    let (claim, at) = &claims[0];
    let race_id = ends[0].race["race_id"].as_str().unwrap();
    assert_eq!(claim, &format!("refs/goal/won/{race_id}"));
    // The default race id: the start commit's 12 hex, then the goal's hash.
    assert!(race_id.starts_with(&seed.head()[..12]), "{race_id}");
    assert_eq!(
        at,
        &server.git(&["rev-parse", &format!("refs/heads/{winner}")])
    );
    let status = server.git(&[
        "log",
        "-1",
        "--format=%(trailers:key=Goal-Status,valueonly)",
        at,
    ]);
    assert_eq!(status, "complete");

    // Every racer agrees on the race and its winner; each is on a branch of its own, pushed.
    for (e, clone) in ends.iter().zip(&clones) {
        assert_eq!(e.race["race_id"], race_id, "{}", explain(&e.out));
        assert_eq!(e.race["winner"], winner.as_str());
        assert_pushed(&server, clone, &branch_of(e));
        assert_ne!(branch_of(e), "main");
    }
    assert_eq!(ends[0].race["racers"][0]["outcome"], "complete");
    for e in &ends[1..] {
        let racer = &e.race["racers"][0];
        assert_eq!(racer["outcome"], "lost");
        assert_eq!(racer["winner"], false);
        // Their work: at least the iteration made before the winner proved it, on the server.
        assert!(racer["iterations"].as_u64().unwrap() >= 1, "{racer}");
        let name = if branch_of(e) == branch_of(&ends[1]) {
            "b"
        } else {
            "c"
        };
        let notes = server.git(&[
            "show",
            &format!("refs/heads/{}:notes-{name}.txt", branch_of(e)),
        ]);
        assert!(notes.starts_with("turn 1"), "{notes}");
        assert!(
            event(&events(&e.out), "lost")["reason"]
                .as_str()
                .unwrap()
                .contains(&winner)
        );
    }
    // main was never moved, here or there.
    assert_eq!(server.git(&["rev-parse", "refs/heads/main"]), seed.head());
    stop(server);
}

#[test]
fn a_racer_mid_turn_is_stopped_once_the_claim_verifies_its_cut_short_turn_recorded_and_pushed() {
    let seed = seed();
    let server = GitServer::start(&seed);
    let (_t, t) = scratch();
    let clones: Vec<Repo> = ["a", "b"].iter().map(|n| server.clone(n)).collect();
    let started = std::time::Instant::now();
    let children = vec![
        start(&clones[0], &t, "a", "win", "b", &[]),
        start(&clones[1], &t, "b", "slow", "", &[]),
    ];
    let ends: Vec<End> = children.into_iter().map(end).collect();
    // The slow turn takes a minute: the claim stopped it long before.
    assert!(
        started.elapsed() < Duration::from_secs(45),
        "{:?}",
        started.elapsed()
    );
    let stops: Vec<&str> = ends.iter().map(|e| e.stop.as_str()).collect();
    assert_eq!(stops, ["done", "lost"], "{}", explain(&ends[1].out));
    let loser = &ends[1];
    assert_eq!(code(&loser.out), 0, "{}", explain(&loser.out));
    let branch = branch_of(loser);
    assert_pushed(&server, &clones[1], &branch);
    // Its second turn, cut short, is its last commit: an iteration, on the server.
    let subject = server.git(&["log", "-1", "--format=%B", &format!("refs/heads/{branch}")]);
    assert!(
        subject.contains("cut short") && subject.contains(&branch_of(&ends[0])),
        "{subject}"
    );
    let notes = server.git(&["show", &format!("refs/heads/{branch}:notes-b.txt")]);
    assert_eq!(notes, "turn 1\nturn 2");
    assert_eq!(loser.race["racers"][0]["iterations"], 2);
    stop(server);
}

#[test]
fn two_racers_finishing_at_the_same_moment_make_one_claim() {
    let seed = seed();
    let server = GitServer::start(&seed);
    let (_t, t) = scratch();
    let clones: Vec<Repo> = ["a", "b"].iter().map(|n| server.clone(n)).collect();
    // Each proves the goal as soon as the other has started its first turn: both call `goal done`,
    // and push their claims, at the same moment.
    let script = RACER.replace(
        r#"for other in $WAIT_FOR; do wait_for "$T/$other-2"; done"#,
        r#"for other in $WAIT_FOR; do wait_for "$T/$other-1"; done"#,
    );
    std::fs::write(t.join("racer.sh"), &script).unwrap();
    let children: Vec<Child> = [("a", "b"), ("b", "a")]
        .iter()
        .zip(&clones)
        .map(|((name, other), clone)| {
            clone
                .goal_std()
                .env("GOAL_TIME_SCALE", "0")
                .env("T", &t)
                .env("NAME", name)
                .env("ROLE", "win")
                .env("WAIT_FOR", other)
                .args([
                    "--json",
                    "run",
                    GOAL,
                    "-c",
                    CRITERION,
                    "--claim",
                    "origin",
                    "--race-id",
                    "r-7",
                ])
                .args(["--max-time", "5m", "--", "sh"])
                .arg(t.join("racer.sh"))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let ends: Vec<End> = children.into_iter().map(end).collect();
    let mut stops: Vec<&str> = ends.iter().map(|e| e.stop.as_str()).collect();
    stops.sort();
    assert_eq!(
        stops,
        ["done", "lost"],
        "{}\n{}",
        explain(&ends[0].out),
        explain(&ends[1].out)
    );
    for e in &ends {
        assert_eq!(code(&e.out), 0, "{}", explain(&e.out));
        assert_eq!(e.race["race_id"], "r-7");
    }
    let claims = server.refs("refs/goal/won/");
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert_eq!(claims[0].0, "refs/goal/won/r-7");
    let won = ends.iter().find(|e| e.stop == "done").unwrap();
    assert_eq!(
        claims[0].1,
        server.git(&["rev-parse", &format!("refs/heads/{}", branch_of(won))])
    );
    for (e, clone) in ends.iter().zip(&clones) {
        assert_eq!(
            e.race["winner"],
            branch_of(won).as_str(),
            "{}",
            explain(&e.out)
        );
        assert_pushed(&server, clone, &branch_of(e));
    }
    stop(server);
}

#[test]
fn an_unreachable_remote_is_retried_then_the_run_is_unpushed_exit_1() {
    let seed = seed();
    let server = GitServer::start(&seed);
    let clone = server.clone("a");
    stop(server);
    let (_t, t) = scratch();
    let out = end(start(
        &clone,
        &t,
        "a",
        "lose",
        "",
        &["--max-iterations", "1"],
    ));
    assert_eq!(code(&out.out), 1, "{}", explain(&out.out));
    assert_eq!(out.stop, "unpushed");
    let reason = event(&events(&out.out), "unpushed")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    let branch = branch_of(&out);
    assert!(
        reason.contains(&format!("git push origin {branch}")),
        "{reason}"
    );
    assert_eq!(out.race["racers"][0]["outcome"], "unpushed");
    // The work is committed here, on the racer's own branch.
    assert_eq!(
        clone.git(&["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        branch
    );
    assert_eq!(clone.status_porcelain(), "");
}

#[test]
fn claim_refuses_a_missing_remote_and_a_bad_race_id_before_anything_is_made() {
    let repo = seed();
    let head = repo.head();
    let out = repo
        .goal()
        .args([
            "run", GOAL, "-c", CRITERION, "--claim", "nowhere", "--", "true",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(
        stderr(&out).contains("no remote `nowhere`"),
        "{}",
        stderr(&out)
    );
    repo.git(&["remote", "add", "origin", "/nonexistent"]);
    let out = repo
        .goal()
        .args([
            "run",
            GOAL,
            "-c",
            CRITERION,
            "--claim",
            "origin",
            "--race-id",
            "a b",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(
        stderr(&out).contains("a race id is letters"),
        "{}",
        stderr(&out)
    );
    // Nothing was made: no goal, no branch, HEAD where it was.
    assert_eq!(repo.head(), head);
    assert_eq!(
        repo.git(&["branch", "--format=%(refname:short)"]).trim(),
        "main"
    );
    assert!(!repo.exists(".agents/goal/GOAL.md"));
}

#[test]
fn race_with_claim_races_worktrees_here_through_the_remote() {
    let seed = seed();
    let server = GitServer::start(&seed);
    let clone = server.clone("a");
    let (_t, t) = scratch();
    // Racer 1 proves once racer 2 has pushed its first iteration; racer 2 only notes.
    let script = format!(
        "W=$(basename \"$PWD\")\ncase \"$W\" in *-1-*) ROLE=win; NAME=one; WAIT_FOR=two;; *) ROLE=lose; NAME=two;; esac\n{RACER}"
    );
    std::fs::write(t.join("racer.sh"), script).unwrap();
    let out = clone
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .env("T", &t)
        .args([
            "--json", "run", GOAL, "-c", CRITERION, "--race", "2", "--claim", "origin",
        ])
        .args(["--max-iterations", "40", "--", "sh"])
        .arg(t.join("racer.sh"))
        .timeout(Duration::from_secs(180))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let all = events(&out);
    let race = event(&all, "race");
    let racers = race["racers"].as_array().unwrap();
    let winner = race["winner"].as_str().unwrap();
    assert!(winner.starts_with("goal/say-hello-1-"), "{race}");
    let race_id = race["race_id"].as_str().unwrap();
    let claims = server.refs("refs/goal/won/");
    assert_eq!(
        claims,
        vec![(
            format!("refs/goal/won/{race_id}"),
            server.git(&["rev-parse", &format!("refs/heads/{winner}")])
        )]
    );
    let outcomes: Vec<&str> = racers
        .iter()
        .map(|r| r["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["complete", "lost"], "{race}");
    // The loser's branch, its cut-short turn included, is on the server as it is here.
    let loser = racers[1]["branch"].as_str().unwrap();
    assert_eq!(
        clone.git(&["rev-parse", loser]).trim(),
        server.git(&["rev-parse", &format!("refs/heads/{loser}")])
    );
    stop(server);
}
