//! `goal fleet`: every goal in flight, in every worktree and on every branch.

use std::path::Path;

use crate::context::{Ctx, now_rfc3339};
use crate::error::Result;
use crate::fleet::{self, Row, RunInfo, age_text};
use crate::workspace::Workspace;

/// Every goal in flight: one row per worktree (the main one included; its working GOAL.md, so
/// progress not yet committed shows) and per local branch not checked out in one (its tip's
/// trailers and GOAL.md; a finished goal shows as its last state). With --remote, the
/// remote-tracking branches too, as last fetched (no network).
///
/// Each row: where, goal, status, iteration, proven/total, age of the last goal commit, flags
/// (stagnant, escalated, blocked, hand-made: a tip committed without goal) and the active
/// `goal run` (agent, run id, since). Reads refs and tips only: no history walk.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Also list remote-tracking branches (as last fetched).
    #[arg(long)]
    pub remote: bool,
    /// Fetch REMOTE first (`git fetch`, never prompting, bounded by GOAL_FETCH_TIMEOUT seconds,
    /// default 60), then list its branches as --remote does. When it cannot be reached, a warning
    /// and its branches as last fetched.
    #[arg(long, value_name = "REMOTE")]
    pub fetch: Option<String>,
    /// Write the fleet as one self-contained HTML dashboard to FILE: a row per goal in flight with
    /// its progress drawn, then the finished ones (no script, nothing loaded from the network).
    #[arg(long, value_name = "FILE")]
    pub html: Option<std::path::PathBuf>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let target = args
        .html
        .as_deref()
        .map(|f| crate::commands::report::page_target(ctx, f))
        .transpose()?;
    let ws = Workspace::open_history(ctx)?;
    if let Some(remote) = &args.fetch {
        fetch(&ws, remote)?;
    }
    let now = chrono::DateTime::parse_from_rfc3339(&now_rfc3339())
        .map(|t| t.timestamp())
        .unwrap_or_default();
    let proven_in = |path: &Path, goal: &crate::goal_file::GoalFile| {
        let here = Ctx {
            cwd: path.to_path_buf(),
            file: ctx.file.clone(),
            json: ctx.json,
            color: false,
        };
        let _hush = crate::context::hush();
        let ws = Workspace::open(&here).ok()?;
        crate::ops::proof(&ws, goal).ok().map(|p| p.proven)
    };
    let run_in = |path: &Path| {
        let repo = crate::repo::Repo::discover(path).ok()?;
        fleet::active_run(repo.git_dir())
    };
    let rows = fleet::rows(
        &ws.repo,
        &ws.goal_rel,
        args.remote || args.fetch.is_some(),
        now,
        &proven_in,
        &run_in,
    )?;
    if let Some(path) = target {
        let page = crate::render::fleet_page::page(&rows, &now_rfc3339());
        return crate::commands::report::write_page(ctx, &path, &page);
    }
    if ctx.json {
        ctx.emit_json(&serde_json::json!({ "goals": rows }))?;
    } else {
        print_table(ctx, &rows);
    }
    Ok(0)
}

fn print_table(ctx: &Ctx, rows: &[Row]) {
    let mut table: Vec<[String; 8]> = vec![
        [
            "WHERE", "GOAL", "STATUS", "ITER", "PROVEN", "AGE", "FLAGS", "RUN",
        ]
        .map(String::from),
    ];
    for r in rows {
        let mut goal = r.goal.clone().unwrap_or_else(|| "-".into());
        if goal.chars().count() > 40 {
            goal = goal.chars().take(39).collect::<String>() + "…";
        }
        let place = match (&r.kind, &r.branch) {
            (fleet::Kind::Worktree, Some(b)) => format!("{} [{b}]", r.place),
            _ => r.place.clone(),
        };
        table.push([
            place,
            goal,
            r.status.clone(),
            r.iteration.map_or("-".into(), |i| i.to_string()),
            match (r.proven, r.total) {
                (Some(p), Some(t)) => format!("{p}/{t}"),
                (None, Some(t)) => format!("?/{t}"),
                _ => "-".into(),
            },
            r.age_s.map_or("-".into(), age_text),
            if r.flags.is_empty() {
                "-".into()
            } else {
                r.flags.join(",")
            },
            r.run.as_ref().map_or("-".into(), RunInfo::describe),
        ]);
    }
    let widths: Vec<usize> = (0..8)
        .map(|i| {
            table
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (n, r) in table.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                let pad = widths[i] - cell.chars().count();
                format!("{cell}{}", " ".repeat(pad))
            })
            .collect();
        let line = line.join("  ").trim_end().to_string();
        ctx.say(if n == 0 { ctx.bold(&line) } else { line });
    }
}

/// `--fetch REMOTE`: a remote that is not configured is bad input; one that cannot be reached is
/// a warning (its rows are shown as last fetched).
fn fetch(ws: &Workspace, remote: &str) -> Result<()> {
    if !ws.repo.has_remote(remote) {
        return Err(crate::error::Error::usage(
            format!("--fetch {remote}: no remote of that name"),
            "name a configured remote (`git remote -v` lists them), or add one with `git remote add <name> <url>`",
        ));
    }
    if let Err(why) = ws.repo.fetch(remote)? {
        // A warning is shown even with --quiet: the rows may be old.
        eprintln!(
            "goal: warning: could not fetch {remote} ({why}); its branches are shown as last fetched"
        );
    }
    Ok(())
}
