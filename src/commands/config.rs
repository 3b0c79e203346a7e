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
                json!({
                    "key": key,
                    "default": default,
                    "value": (!found.is_empty()).then(|| values(&found)),
                    "in_force": in_force,
                    "scope": scope,
                    "origin": origin,
                    "entries": found,
                    "description": about,
                })
            })
            .collect();
        ctx.emit_json(&rows)?;
        return Ok(0);
    }
    for (key, default, about) in KEYS {
        let found = entries(key);
        let (in_force, scope, origin) = in_force(&found, default);
        let from = origin.map_or(scope.to_string(), |o| format!("{scope}: {o}"));
        ctx.say(format!(
            "{key} = {in_force} ({from})\n    default {default}: {about}"
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
