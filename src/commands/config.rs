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
    let value = |key: &str| -> Option<String> {
        let repo = repo.as_ref()?;
        let values = repo.config_multi(key);
        (!values.is_empty()).then(|| values.join(", "))
    };
    if ctx.json {
        let rows: Vec<_> = KEYS
            .iter()
            .map(|(key, default, about)| {
                let mut row = json!({"key": key, "default": default, "value": value(key), "description": about});
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
        let current = value(key).map(|v| format!(" = {v}")).unwrap_or_default();
        let ours = match in_goal(key) {
            Some(v) if v.is_empty() => " · GOAL.md: (none), which decides".to_string(),
            Some(v) => format!(" · GOAL.md: {v}, which decides"),
            None => String::new(),
        };
        ctx.say(format!(
            "{key}{current}{ours}\n    default {default}: {about}"
        ));
    }
    Ok(0)
}
