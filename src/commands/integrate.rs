//! `goal integrate claude|pi`: install the agent adapters into a project.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::repo::Repo;
use crate::workspace::write_atomic;

/// Install an agent adapter into this project (idempotent).
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Merge `goal hook claude` into .claude/settings.json for UserPromptSubmit, SessionStart and
    /// Stop, keeping every existing key and hook.
    Claude(ClaudeArgs),
    /// Install the Pi extension into .pi/extensions/goal/.
    Pi,
}

#[derive(Debug, clap::Args)]
pub struct ClaudeArgs {
    /// Print the condition to give Claude Code's `/goal` beside goal's hooks (met only when a tool
    /// result shows `GOAL-PROOF: complete`) and change nothing.
    #[arg(long)]
    pub goal_condition: bool,
}

/// The `/goal` condition that a transcript judge can only meet on `goal done`'s proof line.
pub const GOAL_CONDITION: &str = "a tool result in this session shows a line starting with `GOAL-PROOF: complete` (printed by a `goal done` that succeeded); a claim of being done, a plan, or the text `GOAL-PROOF: open` does not meet it";

pub use crate::claude_hooks::{COMMAND as CLAUDE_COMMAND, EVENTS as CLAUDE_EVENTS};

/// The Pi extension's files, embedded from integrations/pi/.
pub const PI_FILES: &[(&str, &str)] = &[
    ("index.ts", include_str!("../../integrations/pi/index.ts")),
    (
        "package.json",
        include_str!("../../integrations/pi/package.json"),
    ),
];

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    let repo = Repo::discover(&ctx.cwd)?;
    match command {
        Command::Claude(args) if args.goal_condition => {
            println!("{GOAL_CONDITION}");
            Ok(0)
        }
        Command::Claude(_) => claude(ctx, repo.root()),
        Command::Pi => pi(ctx, repo.root()),
    }
}

/// Add the goal hook to `settings` for each event, unless it is there already.
pub fn merge_claude(settings: &mut Map<String, Value>) -> std::result::Result<bool, String> {
    let hooks = settings.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err("`hooks` is not an object".into());
    };
    let mut changed = false;
    for event in CLAUDE_EVENTS {
        let groups = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        let Value::Array(groups) = groups else {
            return Err(format!("`hooks.{event}` is not an array"));
        };
        let present = groups.iter().any(|g| {
            g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
                hs.iter()
                    .any(|h| h.get("command").and_then(Value::as_str) == Some(CLAUDE_COMMAND))
            })
        });
        if !present {
            groups.push(json!({"hooks": [{"type": "command", "command": CLAUDE_COMMAND}]}));
            changed = true;
        }
    }
    Ok(changed)
}

fn claude(ctx: &Ctx, root: &Path) -> Result<u8> {
    let path = root.join(".claude/settings.json");
    let mut settings = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Map::new(),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => map,
            Ok(_) => {
                return Err(Error::Parse {
                    path: path.clone(),
                    line: 1,
                    message: "expected a JSON object".into(),
                });
            }
            Err(e) => {
                return Err(Error::Parse {
                    path: path.clone(),
                    line: e.line(),
                    message: format!("not JSON: {e}"),
                });
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Map::new(),
        Err(e) => return Err(Error::io("cannot read", &path)(e)),
    };
    let changed = merge_claude(&mut settings).map_err(|message| Error::Parse {
        path: path.clone(),
        line: 1,
        message,
    })?;
    if changed {
        let mut text = serde_json::to_string_pretty(&Value::Object(settings)).unwrap_or_default();
        text.push('\n');
        write_atomic(&path, text.as_bytes())?;
        ctx.say(format!(
            "added `{CLAUDE_COMMAND}` to {} for {}",
            path.display(),
            CLAUDE_EVENTS.join(", ")
        ));
        ctx.say("commit .claude/settings.json to share it; `goal` must be on PATH where Claude Code runs");
    } else {
        ctx.say(format!(
            "{} already runs `{CLAUDE_COMMAND}`",
            path.display()
        ));
    }
    Ok(0)
}

fn pi(ctx: &Ctx, root: &Path) -> Result<u8> {
    let dir = root.join(".pi/extensions/goal");
    let mut written = Vec::new();
    for (name, text) in PI_FILES {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(*text) {
            continue;
        }
        write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    if written.is_empty() {
        ctx.say(format!(
            "the Pi extension in {} is up to date",
            dir.display()
        ));
    } else {
        for p in &written {
            ctx.say(format!("wrote {}", p.display()));
        }
        ctx.say("Pi loads it from .pi/extensions/ on its next start; `goal` must be on PATH (or set GOAL_BIN)");
    }
    Ok(0)
}
