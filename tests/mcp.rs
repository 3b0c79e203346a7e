//! `goal mcp` driven by a real MCP client: the Python `mcp` SDK from PyPI (pinned in
//! tests/fixtures/mcp/requirements.txt), in a venv made once per machine under the test cache
//! (`$GOAL_TEST_CACHE`, else `~/.cache/goal-tests`; `.ci/run` makes it too). The client
//! (tests/fixtures/mcp/client.py) takes one step per line, so a test can act as the person
//! between two calls. Skipped when the venv cannot be made, unless GOAL_REQUIRE_AGENT_CLIS is
//! set (CI sets it).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::common::Repo;

/// The `mcp` SDK's pinned version, read from requirements.txt.
fn sdk_version() -> String {
    let text = std::fs::read_to_string(fixture_dir().join("requirements.txt")).unwrap();
    text.trim().strip_prefix("mcp==").unwrap().to_string()
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp")
}

/// The venv's python with the SDK, made when missing (one maker at a time: an OS lock).
fn python() -> Option<PathBuf> {
    static PYTHON: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let cache = std::env::var_os("GOAL_TEST_CACHE")
                .map(PathBuf::from)
                .or_else(|| {
                    std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/goal-tests"))
                })?;
            let venv = cache.join(format!("mcp-{}", sdk_version()));
            let python = venv.join("bin/python");
            let ready = |p: &Path| {
                std::process::Command::new(p)
                    .args(["-c", "import mcp.client.stdio"])
                    .status()
                    .is_ok_and(|s| s.success())
            };
            if ready(&python) {
                return Some(python);
            }
            std::fs::create_dir_all(&cache).ok()?;
            let lock = std::fs::File::create(venv.with_extension("lock")).ok()?;
            lock.lock().ok()?;
            if ready(&python) {
                return Some(python);
            }
            let _ = std::fs::remove_dir_all(&venv);
            let made = std::process::Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status()
                .is_ok_and(|s| s.success())
                && std::process::Command::new(venv.join("bin/pip"))
                    .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
                    .arg(fixture_dir().join("requirements.txt"))
                    .status()
                    .is_ok_and(|s| s.success());
            made.then_some(python)
        })
        .clone()
}

/// The client's python, or None (a skip, said on stderr) when it cannot be had.
fn client_python() -> Option<PathBuf> {
    let found = python();
    if found.is_none() {
        assert!(
            std::env::var_os("GOAL_REQUIRE_AGENT_CLIS").is_none(),
            "the Python mcp SDK could not be installed (pip install -r tests/fixtures/mcp/requirements.txt) and GOAL_REQUIRE_AGENT_CLIS is set"
        );
        eprintln!("skipped: the Python mcp SDK could not be installed");
    }
    found
}

/// A running client session with `goal mcp` in a repository.
pub(crate) struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The handshake's line: the server's name and capabilities.
    pub hello: Value,
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.stdin.write_all(b"\n");
        let _ = self.child.wait();
    }
}

impl Client {
    /// A session with `goal mcp` started in `repo` (ELICIT=`elicit` when given).
    pub(crate) fn start(repo: &Repo, elicit: Option<&str>) -> Option<Client> {
        let python = client_python()?;
        let mut command = repo.command(&python);
        command
            .arg(fixture_dir().join("client.py"))
            .arg(env!("CARGO_BIN_EXE_goal"))
            .arg(repo.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(answer) = elicit {
            command.env("ELICIT", answer);
        }
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let hello = read_line(&mut stdout);
        Some(Client {
            child,
            stdin,
            stdout,
            hello,
        })
    }

    fn step(&mut self, request: Value) -> Value {
        writeln!(self.stdin, "{request}").unwrap();
        self.stdin.flush().unwrap();
        read_line(&mut self.stdout)
    }

    /// The tools the server lists.
    pub(crate) fn tools(&mut self) -> Vec<Value> {
        let listed = self.step(json!({"list": true}));
        listed["tools"].as_array().unwrap().clone()
    }

    /// A tool's result: `isError`, `structured`, `text`, `progress` (messages), `asked`.
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> Value {
        self.step(json!({"call": tool, "args": args}))
    }
}

fn read_line(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}"))
}

/// A repository whose `test.sh` passes once hello.txt exists and counts its runs in
/// `$HOME/pin-runs` (outside the work tree).
fn project() -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\necho run >> \"$HOME/pin-runs\"\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    crate::common::commit_all(&repo, "test");
    repo
}

/// How often the pin ran.
fn pin_runs(repo: &Repo) -> usize {
    std::fs::read_to_string(repo.home().join("pin-runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn the_tools_are_listed_with_their_schemas_and_nothing_of_the_persons() {
    let repo = project();
    let Some(mut client) = Client::start(&repo, None) else {
        return;
    };
    assert_eq!(client.hello["server"], "goal");
    let tools = client.tools();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "goal_criteria_add",
            "goal_done",
            "goal_init",
            "goal_iterate",
            "goal_log",
            "goal_report",
            "goal_status",
            "goal_verify"
        ]
    );
    let schema =
        |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"].clone();
    let add = schema("goal_criteria_add");
    assert_eq!(add["type"], "object");
    assert_eq!(add["required"], json!(["text"]));
    assert_eq!(
        add["properties"]["verify"]["type"],
        json!(["string", "null"])
    );
    let verify = schema("goal_verify");
    assert_eq!(verify["properties"]["criteria"]["type"], "array");
    assert_eq!(verify["properties"]["criteria"]["items"]["type"], "integer");
    assert_eq!(schema("goal_iterate")["required"], json!(["messages"]));
    assert_eq!(schema("goal_init")["required"], json!(["goal"]));
    // What is the person's is no parameter of any tool.
    for tool in &tools {
        let props = tool["inputSchema"]["properties"].as_object();
        for key in props.into_iter().flat_map(|p| p.keys()) {
            assert!(
                ![
                    "confirm",
                    "replace",
                    "abandon_current",
                    "no_verify",
                    "argv",
                    "deslop"
                ]
                .contains(&key.as_str()),
                "{}: {key}",
                tool["name"]
            );
        }
        assert!(!tool["description"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_goal_goes_from_init_to_done_through_the_tools_with_its_pin_approved_by_a_person() {
    let repo = project();
    let Some(mut client) = Client::start(&repo, None) else {
        return;
    };
    let init = client.call(
        "goal_init",
        json!({"goal": "Say hello", "criteria": ["hello.txt exists and the test passes (verify: `sh test.sh`)"]}),
    );
    assert_eq!(init["isError"], false, "{init}");
    let pins = &init["structured"]["pins"];
    assert_eq!(
        pins["awaiting_approval"],
        json!([{"criterion": 1, "command": "sh test.sh"}])
    );
    assert!(
        pins["next"]
            .as_str()
            .unwrap()
            .contains("goal criteria approve 1"),
        "{pins}"
    );
    // Not approved: neither verify nor done runs the pin (a refusal made only under the mark
    // `goal mcp` gives every call).
    for tool in ["goal_verify", "goal_done"] {
        let refused = client.call(tool, json!({}));
        assert_eq!(refused["isError"], true, "{tool}: {refused}");
        let error = &refused["structured"]["error"];
        assert_eq!(error["kind"], "refusal", "{tool}: {refused}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("`sh test.sh` not approved"),
            "{error}"
        );
        assert!(
            error["hint"]
                .as_str()
                .unwrap()
                .contains("goal criteria approve 1"),
            "{error}"
        );
    }
    assert_eq!(pin_runs(&repo), 0);

    // The agent's own shell cannot approve it; the person's terminal can.
    let out = repo
        .goal()
        .env("GOAL_AGENT", "claude")
        .args(["criteria", "approve", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::common::stderr(&out).contains("approving a pin is the person's"));
    repo.ok(&["criteria", "approve", "1"]);

    repo.write("hello.txt", "hello\n");
    let verified = client.call("goal_verify", json!({"criteria": [1]}));
    assert_eq!(verified["isError"], false, "{verified}");
    assert_eq!(verified["structured"]["passes"], true, "{verified}");
    let progress = verified["progress"].as_array().unwrap();
    assert_eq!(progress[0], "goal verify started", "{verified}");
    assert!(
        progress.iter().any(|m| m == "1 passed, 0 failed"),
        "{verified}"
    );
    let iterated = client.call("goal_iterate", json!({"messages": ["Wrote hello.txt"]}));
    assert_eq!(iterated["isError"], false, "{iterated}");
    assert_eq!(iterated["structured"]["proven"], 1);

    let done = client.call("goal_done", json!({}));
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(done["structured"]["goal"], "Say hello");
    assert!(done["progress"].as_array().unwrap().len() > 2, "{done}");
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    // The verify, the red run, done's clean run and its run on the goal's base (the old exam's
    // base run; the goal changed no test, so the clean run is the old exam).
    assert_eq!(pin_runs(&repo), 4);
    let log = client.call("goal_log", json!({}));
    assert_eq!(log["isError"], false, "{log}");
    assert!(
        log["structured"]["rows"].as_array().unwrap().len() >= 3,
        "{log}"
    );
    let report = client.call("goal_report", json!({}));
    assert_eq!(report["isError"], false, "{report}");
    repo.assert_fsck();
}

#[test]
fn an_error_carries_its_kind_and_bad_input_changes_nothing() {
    let repo = project();
    let Some(mut client) = Client::start(&repo, None) else {
        return;
    };
    let head = repo.head();
    // No goal: a negative answer, with the status document's keys still there.
    let status = client.call("goal_status", json!({}));
    assert_eq!(status["isError"], true);
    assert_eq!(status["structured"]["active"], false, "{status}");
    assert_eq!(status["structured"]["error"]["kind"], "refusal", "{status}");
    assert_eq!(status["structured"]["error"]["exit_code"], 1, "{status}");
    let init = client.call(
        "goal_init",
        json!({"goal": "Say hello", "criteria": ["hello.txt exists (verify: `sh test.sh`)"]}),
    );
    assert_eq!(init["isError"], false, "{init}");
    let head = {
        assert_ne!(repo.head(), head);
        repo.head()
    };
    // Bad input: no such criterion, a flag-looking text taken as text, no message.
    let bad = client.call("goal_verify", json!({"criteria": [7]}));
    assert_eq!(bad["structured"]["error"]["kind"], "user", "{bad}");
    assert_eq!(bad["structured"]["error"]["exit_code"], 2, "{bad}");
    let bad = client.call("goal_iterate", json!({"messages": []}));
    assert_eq!(bad["structured"]["error"]["kind"], "user", "{bad}");
    // The person's choices are not reachable through a text: `--replace` is the goal's text here.
    let again = client.call("goal_init", json!({"goal": "--replace"}));
    assert_eq!(again["isError"], true, "{again}");
    assert_eq!(again["structured"]["error"]["kind"], "refusal", "{again}");
    assert_eq!(repo.head(), head);
    assert!(repo.goal_md().contains("Say hello"));
    assert_eq!(pin_runs(&repo), 0);
}

#[test]
fn a_client_that_can_ask_gets_the_pin_approved_by_the_person_answering() {
    for (answer, approved) in [("accept", true), ("decline", false)] {
        let repo = project();
        let Some(mut client) = Client::start(&repo, Some(answer)) else {
            return;
        };
        let init = client.call("goal_init", json!({"goal": "Say hello"}));
        assert_eq!(init["isError"], false, "{init}");
        let added = client.call(
            "goal_criteria_add",
            json!({"text": "hello.txt exists", "verify": "sh test.sh"}),
        );
        assert_eq!(added["isError"], false, "{added}");
        let asked = added["asked"].as_array().unwrap();
        assert_eq!(asked.len(), 1, "{added}");
        assert!(
            asked[0].as_str().unwrap().contains("`sh test.sh`"),
            "{added}"
        );
        let pins = &added["structured"]["pins"];
        let listed = if approved {
            "approved"
        } else {
            "awaiting_approval"
        };
        assert_eq!(
            pins[listed],
            json!([{"criterion": 1, "command": "sh test.sh"}]),
            "{added}"
        );
        repo.write("hello.txt", "hello\n");
        let verified = client.call("goal_verify", json!({}));
        assert_eq!(verified["isError"], !approved, "{answer}: {verified}");
        assert_eq!(pin_runs(&repo), usize::from(approved));
    }
}

#[test]
fn approving_a_pin_is_a_persons_command_and_a_criterion_without_one_is_bad_input() {
    let repo = project();
    repo.ok(&[
        "init",
        "Say hello",
        "-c",
        "hello.txt exists",
        "-c",
        "it passes (verify: `sh test.sh`)",
    ]);
    let approvals = repo.path().join(".git/goal-approved-pins");
    // A person's own pin is approved as they write it.
    let written = std::fs::read_to_string(&approvals).unwrap();
    assert!(written.contains(r#""command":"sh test.sh""#), "{written}");
    std::fs::remove_file(&approvals).unwrap();
    let err = repo.refused(
        &["criteria", "approve", "1"],
        2,
        &["criterion 1 has no pin", "goal criteria pin 1"],
    );
    assert!(!approvals.exists(), "{err}");
    repo.refused(&["criteria", "approve", "9"], 2, &["9"]);
    let out = repo
        .goal()
        .env("GOAL_AGENT", "mcp")
        .args(["criteria", "approve", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!approvals.exists());
    let out = repo
        .goal()
        .args(["criteria", "approve", "2", "--json"])
        .output()
        .unwrap();
    let approved = crate::common::json(&out);
    assert_eq!(
        approved,
        json!({"criterion": 2, "command": "sh test.sh", "already": false})
    );
    let again = repo
        .goal()
        .args(["criteria", "approve", "2", "--json"])
        .output()
        .unwrap();
    assert_eq!(crate::common::json(&again)["already"], true);
    // Under goal mcp's mark, a command given to verify is refused whatever it is.
    let out = repo
        .goal()
        .env("GOAL_AGENT", "mcp")
        .args(["verify", "-c", "2", "--", "sh", "test.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::common::stderr(&out).contains("goal mcp runs no command it is given"));
    assert_eq!(pin_runs(&repo), 0);
}
