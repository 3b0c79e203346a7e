//! `goal report`: the summary of a goal a person pastes into a pull request.

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::ops::report::build;
use crate::render::report_text::{markdown, text};
use crate::workspace::Workspace;

use std::path::{Path, PathBuf};

/// Summarise a goal, active or finished, for a pull request: the goal, each criterion with its
/// evidence (command, tests passed/failed, commit; unpinned commands marked), iterations and
/// time spent, retries, stagnation episodes, material changes, hand-made commits, the
/// clean-up findings of the goal's diff, and each `goal run` that worked on it (the agent of each
/// iteration, what its agents reported using).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A commit of the goal, or after it (default HEAD): the last goal on its history is shown.
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
    /// GitHub-flavoured Markdown, with the criteria as a table.
    #[arg(long)]
    pub markdown: bool,
    /// Write the report as one self-contained HTML page to FILE: each criterion red → green over
    /// the iterations, proven criteria per iteration, tokens and cost per iteration against the
    /// run's budget, agents and failovers, and the findings (inline SVG and CSS; no script, nothing
    /// loaded from the network).
    #[arg(long, value_name = "FILE", conflicts_with = "markdown")]
    pub html: Option<PathBuf>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    if ctx.json && args.markdown {
        return Err(Error::usage(
            "--json and --markdown cannot be used together",
            "pick one: `goal report --json` or `goal report --markdown`",
        ));
    }
    let target = args
        .html
        .as_deref()
        .map(|f| page_target(ctx, f))
        .transpose()?;
    let ws = Workspace::open_history(ctx)?;
    let report = build(&ws, args.rev.as_deref().unwrap_or("HEAD"))?;
    if let Some(path) = target {
        return write_page(ctx, &path, &crate::render::report_page::page(&report));
    }
    if ctx.json {
        ctx.emit_json(&report)?;
    } else if args.markdown {
        ctx.say(markdown(&report));
    } else {
        ctx.say(text(&report));
    }
    Ok(0)
}

/// Where an `--html FILE` page goes (relative to the directory goal runs in); its folder must
/// exist, as for a shell redirection. Checked before anything is read.
pub(crate) fn page_target(ctx: &Ctx, file: &Path) -> Result<PathBuf> {
    let path = ctx.cwd.join(file);
    let dir = path.parent().unwrap_or(Path::new("."));
    if path.is_dir() || !dir.is_dir() {
        return Err(Error::usage(
            format!(
                "--html {}: not a file in an existing folder",
                file.display()
            ),
            "give a file path whose folder exists, e.g. `--html report.html`",
        ));
    }
    Ok(path)
}

/// Write a page and say where (with --json, `{"html": <path>}`).
pub(crate) fn write_page(ctx: &Ctx, path: &Path, page: &str) -> Result<u8> {
    crate::workspace::write_atomic(path, page.as_bytes())?;
    if ctx.json {
        ctx.emit_json(&serde_json::json!({ "html": path.display().to_string() }))?;
    } else if !ctx.quiet() {
        ctx.say(format!("wrote {}", path.display()));
    }
    Ok(0)
}
