//! `goal hook <host>`: every agent host's hook adapter. Each reads its host's payload on stdin,
//! asks the one verdict (`ops::hook`) and answers in the host's own format on stdout; it always
//! exits 0, a problem said as a `systemMessage`. Each run is recorded (outside the repository) so
//! `goal status` can say when the host's hooks last ran.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::ops::hook::{Stop, StopInput};
use crate::workspace::Workspace;

/// Agent hosts' hooks: answer one event read from stdin in the host's format.
///
/// `--json` prints the host-neutral verdict instead. Always exits 0; problems are reported as a
/// `systemMessage`. The git hooks (pre-commit, commit-msg) are `goal hooks`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Claude Code (UserPromptSubmit, SessionStart, Stop), verified with Claude Code 2.1.
    Claude(HostArgs),
    /// Codex CLI (SessionStart, UserPromptSubmit, Stop answering `{"decision":"block"}`),
    /// verified with codex 0.169.0 (`codex exec`).
    Codex(HostArgs),
    /// Gemini CLI (SessionStart, BeforeAgent, AfterAgent answering `{"decision":"deny"}`),
    /// verified with gemini 0.61.0 (`gemini -p`).
    Gemini(HostArgs),
    /// opencode, called by the plugin `goal integrate opencode` writes (session.created,
    /// chat.message, session.idle), verified with opencode 1.18.33 (`opencode serve`).
    Opencode(HostArgs),
    /// Cursor (sessionStart, beforeSubmitPrompt, stop answering `followup_message`): unverified,
    /// tested with recorded payloads in the documented format.
    Cursor(HostArgs),
}

#[derive(Debug, clap::Args)]
pub struct HostArgs {
    /// The event, where the host's payload does not name it (`hook_event_name`).
    #[arg(long, value_name = "NAME")]
    pub event: Option<String>,
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    let (host, args) = match command {
        Command::Claude(a) => ("claude", a),
        Command::Codex(a) => ("codex", a),
        Command::Gemini(a) => ("gemini", a),
        Command::Opencode(a) => ("opencode", a),
        Command::Cursor(a) => ("cursor", a),
    };
    let answer = match read_stdin().and_then(|input| answer(ctx, host, &input, args.event)) {
        Ok(answer) => answer,
        Err(message) => Some(json!({"systemMessage": format!("goal hook {host}: {message}")})),
    };
    if let Some(answer) = answer {
        println!("{answer}");
    }
    Ok(0)
}

/// The event's JSON from stdin. Err: what was wrong with it, which the hook answers the host
/// with as a `systemMessage` (a hook always exits 0).
fn read_stdin() -> std::result::Result<String, String> {
    if std::io::stdin().is_terminal() {
        return Err("expected the hook's JSON on stdin (the host pipes it)".into());
    }
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(input)
}

/// What one event asks of goal, whatever the host.
enum Asked {
    Start,
    Prompt(String),
    Stop {
        continuing: bool,
        transcript: Option<PathBuf>,
        once: Option<String>,
    },
    Other,
}

/// goal's answer, whatever the host.
enum Answer {
    Context(String),
    Stop(Stop),
}

/// The answer to one event: Some(JSON) to print, None to print nothing. Err: what was wrong with
/// the event, told to the host as a `systemMessage` (a hook always exits 0).
fn answer(
    ctx: &Ctx,
    host: &str,
    input: &str,
    event: Option<String>,
) -> std::result::Result<Option<Value>, String> {
    let value: Value =
        serde_json::from_str(input).map_err(|e| format!("stdin is not JSON: {e}"))?;
    let Value::Object(payload) = value else {
        return Err("stdin is not a JSON object".into());
    };
    let name = match (event, payload.get("hook_event_name")) {
        (Some(name), _) => name,
        (None, Some(Value::String(name))) => name.clone(),
        _ => return Err("the event has no string `hook_event_name` (or give --event)".into()),
    };
    let here = Ctx {
        cwd: session_dir(&payload).unwrap_or_else(|| ctx.cwd.clone()),
        file: ctx.file.clone(),
        json: false,
        color: false,
    };
    // An agent's hook speaks only in its answer: the goal's notes would reach the agent as noise.
    let _hush = crate::context::hush();
    let asked = asked(host, &name, &payload)?;
    let ws = match Workspace::open(&here) {
        Ok(ws) => ws,
        Err(Error::NotARepo { .. }) => return Ok(None),
        Err(e) => return Err(said(e)),
    };
    record_run(&ws, host);
    if host == "claude" && matches!(asked, Asked::Start) {
        mark_agent_env(std::env::var_os("CLAUDE_ENV_FILE").map(PathBuf::from));
    }
    let answer = match asked {
        Asked::Start => crate::ops::hook::session_start(&ws).map(Answer::Context),
        Asked::Prompt(prompt) => crate::ops::hook::prompt(&ws, &prompt).map(Answer::Context),
        Asked::Stop {
            continuing,
            transcript,
            once,
        } => {
            let input = StopInput {
                continuing,
                transcript: transcript.as_deref(),
                once,
            };
            crate::ops::hook::stop(&ws, &input).map(Answer::Stop)
        }
        Asked::Other => return Ok(None),
    }
    .map_err(said)?;
    Ok(if ctx.json {
        Some(neutral(&answer))
    } else {
        render(host, &name, answer)
    })
}

fn said(e: Error) -> String {
    match e.hint() {
        Some(hint) => format!("{e} (hint: {hint})"),
        None => e.to_string(),
    }
}

/// The session's directory: `cwd` (Claude Code, Codex, Gemini CLI, opencode's plugin), else
/// Cursor's first workspace root.
fn session_dir(payload: &Map<String, Value>) -> Option<PathBuf> {
    let dir = match payload.get("cwd") {
        Some(Value::String(dir)) => Some(dir.as_str()),
        _ => payload
            .get("workspace_roots")
            .and_then(|r| r.get(0))
            .and_then(Value::as_str),
    }?;
    let dir = PathBuf::from(dir);
    dir.is_dir().then_some(dir)
}

/// Which event of goal's a host's event is. Err: what in its payload is wrong, told to the host
/// as a `systemMessage`.
fn asked(
    host: &str,
    name: &str,
    payload: &Map<String, Value>,
) -> std::result::Result<Asked, String> {
    let flag = |key: &str| matches!(payload.get(key), Some(Value::Bool(true)));
    let text = |key: &str| match payload.get(key) {
        Some(Value::String(p)) => Ok(p.clone()),
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(format!("`{key}` is not a string")),
    };
    let asked = match (host, name) {
        (_, "SessionStart" | "sessionStart" | "session.created") => Asked::Start,
        ("claude" | "codex", "UserPromptSubmit")
        | ("gemini", "BeforeAgent")
        | ("opencode", "chat.message")
        | ("cursor", "beforeSubmitPrompt") => Asked::Prompt(text("prompt")?),
        ("claude" | "codex", "Stop") | ("gemini", "AfterAgent") | ("opencode", "session.idle") => {
            Asked::Stop {
                continuing: flag("stop_hook_active") || loop_count(payload) > 0,
                transcript: match payload.get("transcript_path") {
                    Some(Value::String(path)) if host == "claude" => Some(PathBuf::from(path)),
                    _ => None,
                },
                once: once_key(payload),
            }
        }
        ("cursor", "stop") => match payload.get("status").and_then(Value::as_str) {
            // The person stopped it, or it failed: not a stop goal judges.
            Some("aborted" | "error") => Asked::Other,
            _ => Asked::Stop {
                continuing: loop_count(payload) > 0,
                transcript: None,
                once: once_key(payload),
            },
        },
        _ => Asked::Other,
    };
    Ok(asked)
}

fn loop_count(payload: &Map<String, Value>) -> u64 {
    payload
        .get("loop_count")
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The key of one stop under Cursor, which runs its own hooks and Claude Code's for it: the
/// conversation and generation ids. None outside Cursor.
fn once_key(payload: &Map<String, Value>) -> Option<String> {
    let id = |key: &str| payload.get(key).and_then(Value::as_str);
    Some(format!(
        "{}:{}",
        id("conversation_id")?,
        id("generation_id")?
    ))
}

/// The host-neutral answer (`--json`).
fn neutral(answer: &Answer) -> Value {
    match answer {
        Answer::Context(text) => json!({"decision": "context", "context": text}),
        Answer::Stop(stop) => json!({
            "decision": if stop.block { "block" } else { "allow" },
            "reason": stop.reason,
            "proven": stop.proven,
            "total": stop.total,
        }),
    }
}

/// The answer in the host's format.
fn render(host: &str, event: &str, answer: Answer) -> Option<Value> {
    let context = |text: String| {
        (!text.is_empty()).then(
            || json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}),
        )
    };
    match (host, answer) {
        ("cursor", Answer::Context(text)) if event == "sessionStart" => {
            Some(json!({"env": {"GOAL_AGENT": "cursor"}, "additional_context": text}))
        }
        ("cursor", Answer::Context(_)) => Some(json!({"continue": true})),
        ("cursor", Answer::Stop(stop)) => Some(match stop.reason.filter(|_| stop.block) {
            Some(reason) => json!({"followup_message": reason}),
            None => json!({}),
        }),
        ("opencode", Answer::Context(text)) => Some(json!({"context": text})),
        ("gemini", Answer::Context(text)) => context(text).or_else(|| Some(json!({}))),
        (_, Answer::Context(text)) => context(text),
        (_, Answer::Stop(stop)) => {
            let decision = if host == "gemini" { "deny" } else { "block" };
            match stop.reason.filter(|_| stop.block) {
                Some(reason) => Some(json!({"decision": decision, "reason": reason})),
                None if host == "claude" || host == "codex" => None,
                None => Some(json!({})),
            }
        }
    }
}

/// Write when the host's hook last ran for this work tree; never fatal to the hook.
fn record_run(ws: &Workspace, host: &str) {
    let path = crate::repo::hook_record(ws.repo.root(), host);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&path, crate::context::now_rfc3339());
}

/// The line SessionStart appends to Claude Code's environment file: the session's commands run
/// marked as the agent's, so `--confirm` from them is refused.
pub const AGENT_MARK: &str = "export GOAL_AGENT=claude";

/// Mark the session's environment as the agent's: append [`AGENT_MARK`] to the file Claude Code
/// names in `CLAUDE_ENV_FILE` (only when it names one; once). A file that cannot be written is
/// warned about, never fatal to the hook.
fn mark_agent_env(file: Option<PathBuf>) {
    let Some(file) = file.filter(|f| !f.as_os_str().is_empty()) else {
        return;
    };
    let existing = std::fs::read_to_string(&file).unwrap_or_default();
    if existing.lines().any(|l| l.trim() == AGENT_MARK) {
        return;
    }
    let separator = if existing.is_empty() || existing.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, format!("{separator}{AGENT_MARK}\n").as_bytes())
        });
    if let Err(e) = written {
        eprintln!(
            "goal: warning: cannot mark the session as the agent's in {} ({e}): `--confirm` will not be refused in it",
            file.display()
        );
    }
}
