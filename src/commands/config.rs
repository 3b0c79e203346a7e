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
    let goal = crate::workspace::Workspace::open(ctx)
        .ok()
        .and_then(|ws| ws.read_goal(crate::workspace::Part::View).ok().flatten());
    let in_goal = |key: &str| -> Option<String> {
        let settings = &goal.as_ref()?.settings;
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
    };
    let entries = |key: &str| -> Vec<ConfigEntry> {
        repo.as_ref()
            .map_or_else(Vec::new, |r| r.config_entries(key))
    };
    if ctx.json {
        let rows: Vec<_> = KEYS
            .iter()
            .map(|(key, default, about)| {
                let found = entries(key);
                let (in_force, scope, origin) = in_force(&found, default);
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
        ctx.say(format!(
            "{key} = {in_force} ({from}){ours}\n    default {default}: {about}"
        ));
    }
    Ok(0)
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
