//! `goal ci init [--race]`: write a GitHub Actions workflow into the repository — the audit of a
//! pull request's goals, or a race of agents on one goal across runners.

use serde_json::json;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::workflow::{self, Workflow};
use crate::workspace::Workspace;

/// Set up CI for goals (GitHub Actions).
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Write a GitHub Actions workflow: `.github/workflows/goal-audit.yml` (each pull request's
    /// goals audited with `goal audit --rerun`), or with --race `.github/workflows/goal-race.yml`
    /// (started by hand with a goal, its criteria and a list of agents: a runner per agent, each
    /// `goal run --claim origin --race-id <run id>`, then `goal recheck` and `goal audit --rerun
    /// --strict` on the claimed commit). Nothing is committed: review it, commit it, push it. A
    /// workflow there already is left alone unless --force (the same text: nothing to do). Exit 0
    /// written or up to date; 1 a different workflow is there; 2 bad input (nothing written).
    Init(InitArgs),
}

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Write the race workflow (agents racing on a goal through this repository's remote).
    #[arg(long)]
    pub race: bool,
    /// An agent the race offers by default (repeatable, at least two: a race of one is no race;
    /// the `agents` input, default claude and codex).
    #[arg(long, value_name = "NAME", requires = "race", value_parser = clap::builder::PossibleValuesParser::new(crate::runner::presets::names()))]
    pub agent: Vec<String>,
    /// Replace a workflow file that says something else.
    #[arg(long)]
    pub force: bool,
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    match command {
        Command::Init(args) => init(ctx, args),
    }
}

fn init(ctx: &Ctx, args: InitArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let which = if args.race {
        Workflow::Race
    } else {
        Workflow::Audit
    };
    let mut agents = Vec::new();
    for a in &args.agent {
        if !agents.contains(a) {
            agents.push(a.clone());
        }
    }
    if agents.is_empty() {
        agents = workflow::DEFAULT_RACERS.map(str::to_string).to_vec();
    }
    if args.race && agents.len() < 2 {
        return Err(Error::usage(
            format!(
                "a race needs at least two agents, and --agent names only {}",
                agents.join(", ")
            ),
            format!(
                "name another with --agent: `goal ci init --race --agent {} --agent <name>` (or give none for {})",
                agents.join(" --agent "),
                workflow::DEFAULT_RACERS.join(" and ")
            ),
        ));
    }
    let text = workflow::render(which, &agents);
    let rel = which.path();
    let path = ws.root().join(rel);
    let before = std::fs::read_to_string(&path).ok();
    let written = before.as_deref() != Some(text.as_str());
    if written && before.is_some() && !args.force {
        return Err(Error::refused(
            format!("{rel} exists and says something else: it is left as it is"),
            format!(
                "see what would change with `goal ci init{} --force` then `git diff {rel}` (its old text is in git if it was committed), or move it aside first",
                if args.race { " --race" } else { "" }
            ),
        ));
    }
    if written {
        write(&path, &text)?;
    }
    let next = next_steps(which, rel, &agents);
    if ctx.json {
        ctx.emit_json(&json!({
            "workflow": which.name(),
            "path": rel,
            "written": written,
            "replaced": written && before.is_some(),
            "agents": if args.race { json!(agents) } else { json!(null) },
            "next": next,
        }))?;
        return Ok(0);
    }
    ctx.say(if !written {
        format!("{rel} is up to date (nothing written)")
    } else if before.is_some() {
        format!("replaced {rel}")
    } else {
        format!("wrote {rel}")
    });
    ctx.say("next:");
    for line in next {
        ctx.say(format!("  {line}"));
    }
    Ok(0)
}

/// Write the file whole or not at all (a temporary file beside it, renamed over it).
fn write(path: &std::path::Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(path);
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create the workflows folder", dir))?;
    let temp = path.with_extension("yml.tmp");
    std::fs::write(&temp, text).map_err(Error::io("cannot write the workflow", &temp))?;
    std::fs::rename(&temp, path).map_err(Error::io("cannot write the workflow", path))
}

/// What to do after: commit and push it; for the race, the keys and how to start one.
fn next_steps(which: Workflow, rel: &str, agents: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    if workflow::needs_goal_git() {
        lines.push(
            "set where the runners build goal from: gh variable set GOAL_GIT --body <goal's git URL> (cargo install --locked --git <it>)".to_string(),
        );
    }
    lines.push(format!(
        "git add {rel} && git commit -m \"CI: goal {}\" && git push",
        which.name()
    ));
    if which == Workflow::Race {
        let mut keys: Vec<&str> = Vec::new();
        for a in workflow::agent_setups()
            .iter()
            .filter(|a| agents.iter().any(|x| x == a.agent))
        {
            if !keys.contains(&a.key) {
                keys.push(a.key);
            }
        }
        lines.push(format!(
            "add each agent's key as a repository secret: {} (gh secret set <NAME>)",
            keys.join(", ")
        ));
        lines.push(format!(
            "gh workflow run goal-race.yml -f goal=\"<goal>\" -f criteria=\"<criterion> (verify: \\`<test command>\\`)\" -f agents='{}'",
            serde_json::to_string(agents).unwrap_or_default()
        ));
    }
    lines
}
