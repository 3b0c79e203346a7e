//! One tool call: the `goal` command it stands for, run as a child process with `--json` and the
//! agent's mark (`GOAL_AGENT=mcp`), its one JSON document the tool's structured result. The
//! child's stderr becomes progress notifications; a run with no line for a while still sends one,
//! so a client's time-out sees the call alive. Being a child keeps stdout, where the protocol is
//! spoken, clear of anything the command or its pins print.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolResult, ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// The longest a long call goes without a progress notification.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Where and how the server runs `goal`.
#[derive(Debug, Clone)]
pub struct Runner {
    /// This binary (else `goal` on PATH).
    pub bin: PathBuf,
    /// The directory the server was started in (`-C` of every call).
    pub dir: PathBuf,
    /// `--file` / `GOAL_FILE` as the server was given it.
    pub file: Option<PathBuf>,
}

/// Where a call's progress goes: the client and the token it sent with the request.
pub struct Progress {
    pub peer: Peer<RoleServer>,
    pub token: ProgressToken,
    sent: f64,
}

impl Progress {
    pub fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Progress {
        Progress {
            peer,
            token,
            sent: 0.0,
        }
    }

    async fn say(&mut self, message: String) {
        self.sent += 1.0;
        let param =
            ProgressNotificationParam::new(self.token.clone(), self.sent).with_message(message);
        // A client that went away is the transport's to notice, not this call's.
        let _ = self.peer.notify_progress(param).await;
    }
}

/// What a finished child left: its exit code, its stdout, the `goal: error:`/`hint:` lines.
struct Finished {
    code: Option<i32>,
    stdout: Vec<u8>,
    error: Option<String>,
    hint: Option<String>,
}

impl Runner {
    /// `goal -C <dir> [--file F] --json <args…>` with the agent's mark, as a tool result.
    pub async fn call(&self, args: Vec<String>, progress: Option<Progress>) -> CallToolResult {
        let what = format!("goal {}", args.first().cloned().unwrap_or_default());
        match self.run(&args, progress).await {
            Ok(finished) => result(&what, finished),
            Err(e) => CallToolResult::structured_error(error_document(
                crate::error::ErrorKind::Environment,
                &format!("cannot run {what}: {e}"),
                Some("check that the goal binary that started this server is still installed"),
                None,
            )),
        }
    }

    async fn run(&self, args: &[String], progress: Option<Progress>) -> std::io::Result<Finished> {
        let mut command = tokio::process::Command::new(&self.bin);
        command.arg("-C").arg(&self.dir).arg("--json");
        if let Some(file) = &self.file {
            command.arg("--file").arg(file);
        }
        command
            .args(args)
            .env(crate::person::MARKS[0], crate::person::MCP_AGENT)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let mut stdout = child.stdout.take().ok_or_else(closed)?;
        let stderr = child.stderr.take().ok_or_else(closed)?;
        let read_stdout = async move {
            let mut bytes = Vec::new();
            stdout.read_to_end(&mut bytes).await.map(|_| bytes)
        };
        let (stdout, lines) = tokio::join!(read_stdout, watch(stderr, progress, &args[0]));
        let status = child.wait().await?;
        let (error, hint) = lines;
        Ok(Finished {
            code: status.code(),
            stdout: stdout?,
            error,
            hint,
        })
    }
}

fn closed() -> std::io::Error {
    std::io::Error::other("the child's output was not captured")
}

/// Read the child's stderr to its end: each line a progress message (and a tick when none came
/// for [`PROGRESS_EVERY`]); keep the last `goal: error:` and `hint:` lines.
async fn watch(
    stderr: tokio::process::ChildStderr,
    mut progress: Option<Progress>,
    command: &str,
) -> (Option<String>, Option<String>) {
    let mut lines = BufReader::new(stderr).lines();
    let (mut error, mut hint) = (None, None);
    if let Some(p) = progress.as_mut() {
        p.say(format!("goal {command} started")).await;
    }
    let mut waited = 0u64;
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            () = tokio::time::sleep(PROGRESS_EVERY) => {
                waited += PROGRESS_EVERY.as_secs();
                if let Some(p) = progress.as_mut() {
                    p.say(format!("goal {command} still running ({waited} s since its last line)")).await;
                }
                continue;
            }
        };
        let Ok(Some(line)) = line else { break };
        waited = 0;
        if let Some(rest) = line.strip_prefix("goal: error: ") {
            error = Some(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("hint: ") {
            hint = Some(rest.to_string());
        }
        if let Some(p) = progress.as_mut() {
            p.say(line).await;
        }
    }
    (error, hint)
}

/// The tool result of a finished command: its document, an error when it did not exit 0.
fn result(what: &str, finished: Finished) -> CallToolResult {
    let parsed: Option<Value> = serde_json::from_slice(&finished.stdout).ok();
    let code = finished.code.unwrap_or(-1);
    let document = match parsed {
        // `goal log --json` is an array: the result is an object.
        Some(Value::Array(rows)) => json!({ "rows": rows }),
        Some(v) => v,
        None if code == 0 => json!({}),
        None => {
            let message = finished
                .error
                .unwrap_or_else(|| format!("{what} ended with exit code {code} and no document"));
            return CallToolResult::structured_error(error_document(
                crate::error::ErrorKind::of_exit_code(code),
                &message,
                finished.hint.as_deref(),
                Some(code),
            ));
        }
    };
    if code == 0 {
        return CallToolResult::structured(document);
    }
    CallToolResult::structured_error(with_error(document, what, code, &finished))
}

/// A command's document that did not exit 0, with its `error` (kind, message, hint, exit code):
/// the error document itself, or a negative answer's document with one added.
fn with_error(mut document: Value, what: &str, code: i32, finished: &Finished) -> Value {
    if document.get("error").is_some() {
        return document;
    }
    let message = finished
        .error
        .clone()
        .unwrap_or_else(|| format!("{what} answered no (exit code {code})"));
    let error = error_document(
        crate::error::ErrorKind::of_exit_code(code),
        &message,
        finished.hint.as_deref(),
        Some(code),
    );
    if let (Some(object), Some(error)) = (document.as_object_mut(), error.get("error")) {
        object.insert("error".into(), error.clone());
        return document;
    }
    error
}

/// `{"error": {"kind", "message", "hint", "exit_code"}}`, as `--json` writes a failure.
pub fn error_document(
    kind: crate::error::ErrorKind,
    message: &str,
    hint: Option<&str>,
    code: Option<i32>,
) -> Value {
    json!({
        "error": {
            "kind": kind.as_str(),
            "message": message,
            "hint": hint,
            "exit_code": code,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(code: i32, stdout: &str, error: Option<&str>) -> Finished {
        Finished {
            code: Some(code),
            stdout: stdout.as_bytes().to_vec(),
            error: error.map(str::to_string),
            hint: Some("run `goal status`".into()),
        }
    }

    /// (exit code, stdout, stderr's error line) → (is an error, the kind, a key of the result).
    type Case<'a> = (
        i32,
        &'a str,
        Option<&'a str>,
        bool,
        Option<&'a str>,
        &'a str,
    );

    #[test]
    fn results_and_their_kinds() {
        let cases: &[Case] = &[
            (0, r#"{"active": true}"#, None, false, None, "active"),
            (0, r#"[{"n": 1}]"#, None, false, None, "rows"),
            (
                1,
                r#"{"error": {"kind": "refusal", "message": "no"}}"#,
                Some("no"),
                true,
                Some("refusal"),
                "error",
            ),
            (
                1,
                r#"{"record": {}}"#,
                None,
                true,
                Some("refusal"),
                "record",
            ),
            (
                101,
                r#"{"record": {}}"#,
                None,
                true,
                Some("refusal"),
                "record",
            ),
            (2, "", Some("bad flag"), true, Some("user"), "error"),
            (130, "", None, true, Some("environment"), "error"),
        ];
        for (code, stdout, error, is_error, kind, key) in cases {
            let r = result("goal x", finished(*code, stdout, *error));
            assert_eq!(r.is_error, Some(*is_error), "{code} {stdout}");
            let doc = r.structured_content.unwrap();
            assert!(doc.get(*key).is_some(), "{code}: {doc}");
            assert_eq!(doc["error"]["kind"].as_str(), *kind, "{code}: {doc}");
        }
    }
}
