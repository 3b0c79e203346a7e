//! `goal config`: every setting, its default and its value here.

use serde_json::json;

use crate::config::KEYS;
use crate::context::Ctx;
use crate::error::Result;
use crate::repo::{ConfigEntry, Repo};

/// List every `goal.*` git config key with its default and the value in force here, with its
/// scope and the file it comes from (as `git config --show-origin --show-scope`).
/// Set one with `git config goal.<key> <value>` (add --global for every repository).
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    let repo = Repo::discover(&ctx.cwd).ok();
    // The active goal's settings decide over git config's: shown beside them.
    let ws = crate::workspace::Workspace::open(ctx).ok();
    let goal = ws
        .as_ref()
        .and_then(|ws| ws.read_goal(crate::workspace::Part::View).ok().flatten());
    let bounds = pin_bounds(ws.as_ref(), repo.as_ref(), goal.as_ref());
    let bound = |key: &str| -> Option<(String, &'static str)> {
        bounds
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, b)| (b.value.to_string(), b.source))
    };
    let in_goal = |key: &str| goal_value(goal.as_ref(), key);
    let entries = |key: &str| -> Vec<ConfigEntry> {
        repo.as_ref()
            .map_or_else(Vec::new, |r| r.config_entries(key))
    };
    if ctx.json {
        let rows: Vec<_> = KEYS
            .iter()
            .map(|(key, default, about)| {
                let found = entries(key);
                let (mut in_force, scope, origin) = in_force(&found, default);
                let source = bound(key).map(|(value, source)| {
                    in_force = value;
                    source
                });
                let mut row = json!({
                    "key": key,
                    "default": default,
                    "value": (!found.is_empty()).then(|| values(&found)),
                    "in_force": in_force,
                    "scope": scope,
                    "origin": origin,
                    "entries": found,
                    "description": about,
                });
                if let Some(ours) = in_goal(key) {
                    row["goal_value"] = ours.into();
                }
                if let Some(source) = source {
                    row["source"] = source.into();
                }
                row
            })
            .collect();
        ctx.emit_json(&rows)?;
        return Ok(0);
    }
    for (key, default, about) in KEYS {
        let found = entries(key);
        let (in_force, scope, origin) = in_force(&found, default);
        let from = origin.map_or(scope.to_string(), |o| format!("{scope}: {o}"));
        let ours = match in_goal(key) {
            Some(v) if v.is_empty() => " · GOAL.md: (none), which decides".to_string(),
            Some(v) => format!(" · GOAL.md: {v}, which decides"),
            None => String::new(),
        };
        let (in_force, from) = match bound(key) {
            Some((value, source)) => (value, format!("from {source}")),
            None => (in_force, from),
        };
        ctx.say(format!(
            "{key} = {in_force} ({from}){ours}\n    default {default}: {about}"
        ));
    }
    Ok(0)
}

/// GOAL.md's value of a setting that judges the goal, when `key` is one.
fn goal_value(goal: Option<&crate::goal_file::GoalFile>, key: &str) -> Option<String> {
    let settings = &goal?.settings;
    let name = crate::config::GOAL_SETTING_KEYS
        .iter()
        .find(|(k, _)| *k == key)?
        .1;
    Some(match name {
        "tests" => settings.tests.join(", "),
        "tests_only" => settings.tests_only.to_string(),
        "mutants" => settings.mutants.as_str().to_string(),
        _ => settings.mutants_min.to_string(),
    })
}

/// The bounds of the pins' runs in force: GOAL.md's, else git config's, else the defaults.
fn pin_bounds(
    ws: Option<&crate::workspace::Workspace>,
    repo: Option<&Repo>,
    goal: Option<&crate::goal_file::GoalFile>,
) -> [(&'static str, crate::config::PinBound); 2] {
    let config = match (ws, repo) {
        (Some(ws), _) => ws.config.clone(),
        (None, Some(r)) => crate::config::Config::load(r).unwrap_or_default(),
        (None, None) => crate::config::Config::default(),
    };
    let settings = goal.map(|g| &g.settings);
    [
        ("goal.pinTimeout", config.pin_timeout(settings)),
        ("goal.pinMemory", config.pin_memory(settings)),
    ]
}

/// Every value found, as one text (a multi-valued key's values joined).
fn values(found: &[ConfigEntry]) -> String {
    let all: Vec<&str> = found.iter().map(|e| e.value.as_str()).collect();
    all.join(", ")
}

/// The value in force, its scope and the file it comes from: the default when git config
/// holds none; else every value found, with the scope and file of the last one read (the one
/// a single-valued key takes).
fn in_force(found: &[ConfigEntry], default: &str) -> (String, &'static str, Option<String>) {
    match found.last() {
        None => (default.to_string(), "default", None),
        Some(last) => (
            values(found),
            last.scope,
            last.origin.as_ref().map(|o| o.display().to_string()),
        ),
    }
}
