//! The agents of a run, as the flags name them: presets (in failover order) or one custom command.

use super::args::Args;
use crate::error::{Error, Result};
use crate::runner::presets::{self, Patterns, PromptPlace};
use crate::usage::Usage;
use crate::workspace::Workspace;

/// One agent of the run: a preset, or the custom command.
pub(super) struct AgentSpec {
    pub(super) name: String,
    /// Its command line (`{prompt}` stands for the prompt).
    pub(super) argv: Vec<String>,
    pub(super) place: Option<PromptPlace>,
    /// Its failure texts (handed to the machine).
    pub(super) patterns: Option<Patterns>,
    /// The preset's reader of a turn's usage (a custom command reports none).
    pub(super) reader: Option<fn(&str) -> Usage>,
    pub(super) verified: Option<&'static str>,
}

/// The run's agents: each `--agent` preset with the `--agent-arg`s, then the `-- CMD`; refused
/// when one is given twice, names no preset, or none is given.
pub(super) fn agents(args: &Args) -> Result<Vec<AgentSpec>> {
    let mut agents: Vec<AgentSpec> = Vec::new();
    for (i, name) in args.agent.iter().enumerate() {
        if args.agent[..i].contains(name) {
            return Err(Error::usage(
                format!("`--agent {name}` is given twice: a run fails over to each agent once"),
                format!(
                    "list each agent once, in the order to try them (e.g. `--agent {name} --agent <another>`)"
                ),
            ));
        }
        let Some(preset) = presets::preset(name) else {
            return Err(Error::usage(
                format!("no agent preset `{name}`"),
                format!("use one of {}", presets::names().join(", ")),
            ));
        };
        let mut argv: Vec<String> = preset.argv.iter().map(|s| s.to_string()).collect();
        argv.extend(args.agent_args.iter().cloned());
        agents.push(AgentSpec {
            name: name.clone(),
            argv,
            place: Some(preset.prompt),
            patterns: Some(Patterns::of(preset)),
            reader: Some(preset.usage),
            verified: preset.verified,
        });
    }
    if !args.command.is_empty() {
        agents.push(AgentSpec {
            name: args.command[0].clone(),
            argv: args.command.clone(),
            place: None,
            patterns: Some(Patterns::all()),
            reader: None,
            verified: None,
        });
    }
    if agents.is_empty() {
        return Err(no_agent());
    }
    Ok(agents)
}

/// The presets among `names` never run against their real CLI.
pub(super) fn unverified(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .filter(|n| presets::preset(n).is_some_and(|p| p.verified.is_none()))
        .map(String::as_str)
        .collect()
}

/// Keep the files each preset's CLI writes for itself (aider's history…) out of the run's
/// commits, in the repository's info/exclude.
pub(super) fn exclude_own_files(ws: &Workspace, names: &[String]) -> Result<()> {
    for preset in names.iter().filter_map(|n| presets::preset(n)) {
        let common = ws.repo.common_dir().to_path_buf();
        crate::runner::own_files::exclude(&common, preset.name, preset.own_files).map_err(
            Error::io("cannot write the repository's info/exclude", common),
        )?;
    }
    Ok(())
}

/// The refusal of a `goal run` given neither a preset nor a command.
pub(crate) fn no_agent() -> Error {
    Error::usage(
        "no agent: give a preset or a command",
        format!(
            "`goal run --agent claude` (presets: {}), or `goal run -- <command> {{prompt}}`",
            presets::names().join(", ")
        ),
    )
}
