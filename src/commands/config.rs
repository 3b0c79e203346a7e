//! `goal config`: every setting, its default and its value here.

use serde_json::json;

use crate::config::KEYS;
use crate::context::Ctx;
use crate::error::Result;
use crate::repo::Repo;

/// List every `goal.*` git config key with its default and its value in this repository.
/// Set one with `git config goal.<key> <value>` (add --global for every repository).
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    let repo = Repo::discover(&ctx.cwd).ok();
    let value = |key: &str| -> Option<String> {
        let repo = repo.as_ref()?;
        let values = repo.config_multi(key);
        (!values.is_empty()).then(|| values.join(", "))
    };
    if ctx.json {
        let rows: Vec<_> = KEYS
            .iter()
            .map(|(key, default, about)| json!({"key": key, "default": default, "value": value(key), "description": about}))
            .collect();
        ctx.emit_json(&rows)?;
        return Ok(0);
    }
    for (key, default, about) in KEYS {
        let current = value(key).map(|v| format!(" = {v}")).unwrap_or_default();
        ctx.say(format!("{key}{current}\n    default {default}: {about}"));
    }
    Ok(0)
}
