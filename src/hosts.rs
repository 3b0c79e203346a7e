//! The agent hosts `goal` integrates with, in one table: where each keeps its project-level hook
//! configuration, the events goal answers there, the trust step the host asks for, and the
//! agent's mark. `goal integrate <host>` writes from it, `goal hook <host>` answers for it, and
//! `goal status` reads it. Adding and removing goal's entries in a JSON settings file, keeping the
//! user's bytes, is here too. Pure.

use serde_json::{Value, json};

use crate::jsonc::{self, Kind, Node};

/// How a host's JSON file lists the hooks of one event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    /// `"Event": [{"hooks": [{"type": "command", "command": "…"}]}]` (Claude Code, Codex,
    /// Gemini CLI).
    Groups,
    /// `"event": [{"command": "…"}]` (Cursor), with `"version": 1` beside `hooks`.
    Flat,
}

/// One agent host.
#[derive(Debug)]
pub struct Host {
    /// `goal hook <name>`, `goal integrate <name>`.
    pub name: &'static str,
    pub title: &'static str,
    /// The host's version `goal hook <name>` was run against for real; None: unverified.
    pub verified: Option<&'static str>,
    /// The project-level file goal's entries go into, from the work tree's root.
    pub file: &'static str,
    /// The events goal's hook is installed for (empty for a plugin file).
    pub events: &'static [&'static str],
    /// The event that ends a turn, where goal keeps the agent working.
    pub stop: &'static str,
    pub layout: Layout,
    /// What the user must do before the host runs a project's hooks; None: nothing.
    pub trust: Option<&'static str>,
    /// How the agent's commands carry goal's mark under this host.
    pub mark: &'static str,
}

/// Every host `goal hook` answers.
pub const HOSTS: &[Host] = &[
    Host {
        name: "claude",
        title: "Claude Code",
        verified: Some("2.1"),
        file: ".claude/settings.json",
        events: &["UserPromptSubmit", "SessionStart", "Stop"],
        stop: "Stop",
        layout: Layout::Groups,
        trust: None,
        mark: "GOAL_AGENT=claude through CLAUDE_ENV_FILE at SessionStart; CLAUDECODE=1 otherwise",
    },
    Host {
        name: "codex",
        title: "Codex CLI",
        verified: Some("0.169.0"),
        file: ".codex/hooks.json",
        events: &["SessionStart", "UserPromptSubmit", "Stop"],
        stop: "Stop",
        layout: Layout::Groups,
        trust: Some(
            "Codex loads a project's .codex/ only when the project is trusted, and runs a hook only once you trust it by its hash: open `codex`, trust the project, then review and trust goal's hooks in `/hooks` (automation that vets its hooks: `codex exec --dangerously-bypass-hook-trust`)",
        ),
        mark: "GOAL_AGENT=codex through `shell_environment_policy.set` in .codex/config.toml",
    },
    Host {
        name: "gemini",
        title: "Gemini CLI",
        verified: Some("0.61.0"),
        file: ".gemini/settings.json",
        events: &["SessionStart", "BeforeAgent", "AfterAgent"],
        stop: "AfterAgent",
        layout: Layout::Groups,
        trust: Some(
            "Gemini CLI reads a folder's .gemini/settings.json only when the folder is trusted: trust it when `gemini` asks (or `/permissions`), or set GEMINI_CLI_TRUST_WORKSPACE=true; `--skip-trust` runs without the project's hooks",
        ),
        mark: "GEMINI_CLI=1, which Gemini CLI sets in its shell commands",
    },
    Host {
        name: "opencode",
        title: "opencode",
        verified: Some("1.18.33"),
        file: ".opencode/plugins/goal.js",
        events: &[],
        stop: "session.idle",
        layout: Layout::Groups,
        trust: None,
        mark: "GOAL_AGENT=opencode through the plugin's `shell.env` hook",
    },
    Host {
        name: "cursor",
        title: "Cursor",
        verified: None,
        file: ".cursor/hooks.json",
        events: &["sessionStart", "beforeSubmitPrompt", "stop"],
        stop: "stop",
        layout: Layout::Flat,
        trust: None,
        mark: "GOAL_AGENT=cursor through the `env` sessionStart returns",
    },
];

/// The host named `name`.
pub fn host(name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|h| h.name == name)
}

pub const CLAUDE: &Host = &HOSTS[0];
pub const CODEX: &Host = &HOSTS[1];
pub const GEMINI: &Host = &HOSTS[2];
pub const OPENCODE: &Host = &HOSTS[3];
pub const CURSOR: &Host = &HOSTS[4];

impl Host {
    /// The command every hook of this host runs: the same on every machine and version, so a
    /// hook a host trusts by its hash stays trusted across upgrades.
    pub fn command(&self) -> String {
        format!("goal hook {}", self.name)
    }

    /// "verified with <title> <version>" or "unverified".
    pub fn verification(&self) -> String {
        match self.verified {
            Some(v) => format!("verified with {} {v}", self.title),
            None => "unverified".to_string(),
        }
    }

    /// The file goal creates when there is none: an empty object (Cursor's with its version).
    pub fn skeleton(&self) -> &'static str {
        match self.layout {
            Layout::Groups => "{}\n",
            Layout::Flat => "{\n  \"version\": 1\n}\n",
        }
    }

    /// goal's entry for `event`.
    pub fn entry(&self, event: &str, stop_blocks: u32) -> Value {
        let command = self.command();
        match self.layout {
            Layout::Groups => json!({"hooks": [{"type": "command", "command": command}]}),
            Layout::Flat if event == self.stop => {
                json!({"command": command, "loop_limit": stop_blocks + 1})
            }
            Layout::Flat => json!({"command": command}),
        }
    }

    /// Whether an entry of an event's list is goal's.
    pub fn is_ours(&self, entry: &Value) -> bool {
        let command = self.command();
        let is = |v: &Value| v.get("command").and_then(Value::as_str) == Some(command.as_str());
        match self.layout {
            Layout::Groups => entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(is)),
            Layout::Flat => is(entry),
        }
    }
}

/// What adding or removing goal's entries found wrong with the file.
#[derive(Debug, PartialEq)]
pub struct EditError {
    pub line: usize,
    pub message: String,
}

impl From<jsonc::ParseError> for EditError {
    fn from(e: jsonc::ParseError) -> Self {
        EditError {
            line: e.line,
            message: format!("not JSON: {}", e.message),
        }
    }
}

fn object<'a>(node: &'a Node, what: &str) -> Result<&'a Node, EditError> {
    match node.kind {
        Kind::Object(_) => Ok(node),
        _ => Err(EditError {
            line: 1,
            message: format!("{what} is not an object"),
        }),
    }
}

/// `text` (empty when there is no file) with goal's entry added for each of the host's events
/// that has none yet; None when every event has it already.
pub fn install(host: &Host, text: &str, stop_blocks: u32) -> Result<Option<String>, EditError> {
    let mut text = if text.trim().is_empty() {
        host.skeleton().to_string()
    } else {
        text.to_string()
    };
    let mut changed = false;
    for event in host.events {
        let root = jsonc::parse(&text)?;
        object(&root, "the file")?;
        let Some(hooks) = root.get("hooks") else {
            text = jsonc::append(&text, &root, &json!({}), Some("hooks"));
            return install_more(host, text, stop_blocks);
        };
        object(hooks, "`hooks`")?;
        let Some(list) = hooks.get(event) else {
            text = jsonc::append(&text, hooks, &json!([]), Some(event));
            return install_more(host, text, stop_blocks);
        };
        let Kind::Array(items) = &list.kind else {
            return Err(EditError {
                line: 1,
                message: format!("`hooks.{event}` is not an array"),
            });
        };
        if items.iter().any(|i| host.is_ours(&i.value())) {
            continue;
        }
        text = jsonc::append(&text, list, &host.entry(event, stop_blocks), None);
        changed = true;
    }
    Ok(changed.then_some(text))
}

/// [`install`] again after a container was added: it is changed whatever it finds next.
fn install_more(host: &Host, text: String, stop_blocks: u32) -> Result<Option<String>, EditError> {
    Ok(Some(install(host, &text, stop_blocks)?.unwrap_or(text)))
}

/// What removing goal's entries leaves.
#[derive(Debug, PartialEq)]
pub enum Removed {
    /// goal's entries were not there.
    Nothing,
    /// The file without them.
    Text(String),
    /// Nothing but what goal created is left: delete the file.
    Delete,
}

/// `text` without goal's entries, and without the lists (of the host's events) and the `hooks`
/// object they leave as `[]` and `{}`. A list of yours written `[]` goes with them.
pub fn uninstall(host: &Host, text: &str) -> Result<Removed, EditError> {
    let mut text = text.to_string();
    let mut changed = false;
    while let Some(next) = remove_one(&text, |_, _, member| {
        let Kind::Array(items) = &member.value.kind else {
            return None;
        };
        items
            .iter()
            .position(|i| host.is_ours(&i.value()))
            .map(|i| jsonc::remove(&text, &member.value, i))
    })? {
        text = next;
        changed = true;
    }
    if !changed {
        return Ok(Removed::Nothing);
    }
    while let Some(next) = remove_one(&text, |hooks, m, member| {
        let empty = &text[member.value.start..member.value.end] == "[]";
        (empty && host.events.contains(&member.key.as_str()))
            .then(|| jsonc::remove(&text, hooks, m))
    })? {
        text = next;
    }
    let root = jsonc::parse(&text)?;
    if let (Kind::Object(top), Some(hooks)) = (&root.kind, root.get("hooks"))
        && &text[hooks.start..hooks.end] == "{}"
        && let Some(at) = top.iter().position(|t| t.key == "hooks")
    {
        text = jsonc::remove(&text, &root, at);
    }
    if text == host.skeleton() {
        return Ok(Removed::Delete);
    }
    Ok(Removed::Text(text))
}

/// The text `edit` makes of the first member of `hooks` it edits; None when it edits none.
fn remove_one(
    text: &str,
    edit: impl Fn(&Node, usize, &jsonc::Member) -> Option<String>,
) -> Result<Option<String>, EditError> {
    let root = jsonc::parse(text)?;
    let Some(hooks) = root.get("hooks") else {
        return Ok(None);
    };
    let Kind::Object(members) = &hooks.kind else {
        return Ok(None);
    };
    Ok(members
        .iter()
        .enumerate()
        .find_map(|(m, member)| edit(hooks, m, member)))
}

/// Codex's project configuration with goal's mark for the agent's commands
/// (`shell_environment_policy.set.GOAL_AGENT = "codex"`) added (`add`) or removed, by
/// `toml_edit`, which keeps the rest of the file as written. None: nothing to change; `""` after
/// a removal: nothing is left of the file.
pub fn codex_mark(text: &str, add: bool) -> Result<Option<String>, EditError> {
    use toml_edit::{DocumentMut, InlineTable, Item, Table, value};
    let mut doc: DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| EditError {
        line: e.span().map_or(1, |s| {
            text[..s.start.min(text.len())].matches('\n').count() + 1
        }),
        message: format!("not TOML: {}", e.message()),
    })?;
    let policy = doc.get("shell_environment_policy");
    let set = policy.and_then(|p| p.get("set"));
    let present = set.and_then(|s| s.get("GOAL_AGENT")).is_some();
    if add == present {
        return Ok(None);
    }
    if add {
        if policy.is_none() {
            doc.insert("shell_environment_policy", Item::Table(Table::new()));
        }
        let policy = &mut doc["shell_environment_policy"];
        let created = policy.get("set").is_none();
        if created {
            policy["set"] = value(InlineTable::new());
        }
        policy["set"]["GOAL_AGENT"] = value("codex");
        if let Some(set) = policy["set"].as_inline_table_mut().filter(|_| created) {
            set.fmt();
        }
        return Ok(Some(doc.to_string()));
    }
    let policy = &mut doc["shell_environment_policy"];
    let set = &mut policy["set"];
    if let Some(t) = set.as_inline_table_mut() {
        t.remove("GOAL_AGENT");
    } else if let Some(t) = set.as_table_like_mut() {
        t.remove("GOAL_AGENT");
    }
    if set.as_table_like().is_some_and(|t| t.is_empty())
        && let Some(p) = policy.as_table_like_mut()
    {
        p.remove("set");
    }
    if policy.as_table_like().is_some_and(|t| t.is_empty()) {
        doc.remove("shell_environment_policy");
    }
    Ok(Some(doc.to_string()))
}

#[cfg(test)]
mod tests;
