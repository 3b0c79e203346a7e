//! `goal run --race N`: the race's arguments checked before anything is made, its racers'
//! command line, and its summary (a table, or the `race` event ending the JSON stream).

use std::ffi::OsString;

use clap::parser::ValueSource;

use super::run::Args;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::runner::race::{self, Race, RaceReport, RacerOutcome, RacerReport};
use crate::workspace::Workspace;

/// `--race N`: the number of racers, 2 or more. A clap value parser: Err is its message.
pub fn parse_racers(text: &str) -> std::result::Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 2 => Ok(n),
        Ok(n) => Err(format!(
            "a race needs 2 racers or more, not {n} (without --race, `goal run` runs one agent)"
        )),
        Err(_) => Err(format!("`{text}` is not a number of racers (2 or more)")),
    }
}

/// The options no racer is given as they are: the race's own, `--agent` and the global ones.
const OWN: &[&str] = &[
    "race",
    "keep_worktrees",
    "agent",
    "dir",
    "json",
    "quiet",
    "file",
    "help",
    "version",
];

/// The `run` options every racer gets, as given on `argv`: all but the race's own (`--race`,
/// `--keep-worktrees`), `--agent` (each racer gets one) and the global ones (each racer gets its
/// own `-C`, `--file`, `--json`); then the goal text and `-- CMD ARGS…`. Read from the command
/// line itself, so that every option `goal run` has reaches the racers.
pub fn racer_args(
    cli: clap::Command,
    argv: Vec<OsString>,
) -> Result<(Vec<OsString>, Vec<OsString>)> {
    let matches = cli
        .clone()
        .try_get_matches_from(argv)
        .map_err(|e| Error::usage(format!("cannot read the command line again: {e}"), ""))?;
    let (Some(m), Some(run)) = (
        matches.subcommand_matches("run"),
        cli.find_subcommand("run"),
    ) else {
        return Err(Error::usage(
            "`--race` belongs to `goal run`",
            "goal run --race 2 --agent claude --agent codex",
        ));
    };
    let mut options = vec![OsString::from("run")];
    let mut goal = Vec::new();
    let mut command = Vec::new();
    for arg in run.get_arguments() {
        let id = arg.get_id().as_str();
        if OWN.contains(&id) || m.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let values: Vec<OsString> = m
            .get_raw(id)
            .map(|v| v.map(OsString::from).collect())
            .unwrap_or_default();
        if arg.is_positional() {
            if arg.is_last_set() {
                command = values;
            } else {
                goal.extend(values);
            }
            continue;
        }
        let Some(long) = arg.get_long() else {
            continue;
        };
        options.extend(option_words(long, arg.get_action().takes_values(), values));
    }
    let mut tail = goal;
    if !command.is_empty() {
        tail.push(OsString::from("--"));
        tail.extend(command);
    }
    Ok((options, tail))
}

/// An option as the racers are given it: `--long=value` once per value when it takes values,
/// else `--long`.
fn option_words(long: &str, takes_values: bool, values: Vec<OsString>) -> Vec<OsString> {
    if !takes_values {
        return vec![OsString::from(format!("--{long}"))];
    }
    values
        .into_iter()
        .map(|value| {
            let mut option = OsString::from(format!("--{long}="));
            option.push(value);
            option
        })
        .collect()
}

/// `goal run --race N`: the race's arguments checked, its racers seated on their branches, the
/// race run, and its summary printed (a table, or the `race` event). Exits with the race's code.
pub fn run(ctx: &Ctx, args: Args, racers: usize, app: clap::Command) -> Result<u8> {
    if args.agent.is_empty() && args.command.is_empty() {
        return Err(super::run::no_agent());
    }
    let ws = Workspace::open(ctx)?;
    let start = start_commit(&ws)?;
    ws.repo.ensure_idle()?;
    check_remote(&ws, args.claim.as_deref())?;
    // Refused here, before any worktree is made, as each racer would refuse it.
    let text = match super::run::check_goal(&ws, args.goal.as_deref(), &args.criteria)? {
        Some(text) => text,
        None => ws.goal()?.goal,
    };
    let (run_args, tail) = racer_args(app, std::env::args_os().collect())?;
    if crate::repo::worktree::uncommitted(ws.root()).is_ok_and(|paths| !paths.is_empty()) {
        ctx.note(
            "the racers start from the last commit: the uncommitted changes here are not in their worktrees (commit them first to race on them)",
        );
    }
    let seats = seat_racers(&ws, &args, &text, racers);
    exclude_preset_files(ws.repo.common_dir(), &seats)?;
    let report = run_race(ctx, &ws, &args, start, seats, run_args, tail)?;
    if ctx.json {
        println!("{}", race_event(&report)?);
        crate::context::json_written();
    } else {
        render(ctx, &report, args.claim.as_deref());
    }
    Ok(report.code)
}

/// The commit every racer starts from: HEAD, refused when the branch has no commit yet.
fn start_commit(ws: &Workspace) -> Result<crate::repo::Oid> {
    let Some(start) = ws.repo.head_id()? else {
        return Err(Error::usage(
            "no commit to start the racers from (the branch has no commit yet)",
            "make a first commit with `git commit`, then `goal run --race N` again",
        ));
    };
    Ok(start)
}

/// `--claim <remote>`: whether the remote exists in this repository (refused when it does not).
fn check_remote(ws: &Workspace, claim: Option<&str>) -> Result<()> {
    if let Some(remote) = claim
        && !ws.repo.has_remote(remote)
    {
        return Err(Error::usage(
            format!("no remote `{remote}` in this repository"),
            format!(
                "add it with `git remote add {remote} <url>`, or name one that `git remote` lists"
            ),
        ));
    }
    Ok(())
}

/// The racers' seats: each one's agent and a branch no one has taken yet (here, or as a racer's
/// worktree). Through a remote, every racer's branch is new everywhere: the run's id is in its
/// name.
fn seat_racers(ws: &Workspace, args: &Args, text: &str, racers: usize) -> Vec<race::Seat> {
    let common = ws.repo.common_dir();
    let taken = |branch: &str| {
        ws.repo.branch_exists(branch) || race::worktree_path(common, branch).exists()
    };
    let suffix = args
        .claim
        .as_ref()
        .map(|_| format!("-{}", super::run::run_id()));
    let mut seats = race::seats(
        &race::slug(text),
        racers,
        &args.agent,
        args.command.first().map(String::as_str),
        &|branch: &str| taken(&format!("{branch}{}", suffix.as_deref().unwrap_or(""))),
    );
    if let Some(suffix) = &suffix {
        for seat in &mut seats {
            seat.branch.push_str(suffix);
        }
    }
    seats
}

/// Each preset's own files are kept out of the racers' commits before they start (they share
/// info/exclude, and would all write it at once).
fn exclude_preset_files(common: &std::path::Path, seats: &[race::Seat]) -> Result<()> {
    for seat in seats.iter().filter(|s| s.preset) {
        if let Some(preset) = crate::runner::presets::preset(&seat.agent) {
            crate::runner::own_files::exclude(common, preset.name, preset.own_files).map_err(
                Error::io(
                    "cannot write the repository's info/exclude",
                    common.to_path_buf(),
                ),
            )?;
        }
    }
    Ok(())
}

/// The race itself, its progress said on stdout (unless `--json` or `--quiet`) and the racers'
/// stderr passed on (unless `--quiet`).
fn run_race(
    ctx: &Ctx,
    ws: &Workspace,
    args: &Args,
    start: crate::repo::Oid,
    seats: Vec<race::Seat>,
    run_args: Vec<OsString>,
    tail: Vec<OsString>,
) -> Result<RaceReport> {
    let quiet = ctx.json || ctx.quiet();
    let say = |line: &str| {
        if !quiet {
            println!("goal run --race: {line}");
        }
    };
    let note = |line: &str| {
        if !ctx.quiet() {
            eprintln!("goal: {line}");
        }
    };
    race::race(Race {
        repo: &ws.repo,
        goal_rel: &ws.goal_rel,
        goal_dir: &ws.goal_dir,
        file_given: ctx.file.is_some(),
        start,
        seats,
        run_args,
        tail,
        keep_worktrees: args.keep_worktrees,
        claim: args.claim.clone(),
        say: &say,
        note: &note,
    })
}

/// The race's summary as the last line of `goal run --json`'s stream: one object on one line,
/// `"event": "race"` first, then the racers and the winner.
fn race_event(report: &RaceReport) -> Result<String> {
    let fields =
        serde_json::to_value(report).map_err(|e| Error::internal("write the race summary", e))?;
    let mut event = serde_json::json!({ "event": "race" });
    if let (Some(o), serde_json::Value::Object(f)) = (event.as_object_mut(), fields) {
        o.extend(f);
    }
    Ok(event.to_string())
}

/// `$0.1234 · 3400 tokens`, or `-` when the agent reported nothing.
fn usage_text(u: &crate::usage::Usage) -> String {
    let mut parts = Vec::new();
    if let Some(cost) = u.cost_usd {
        parts.push(format!("${cost:.4}"));
    }
    if let Some(tokens) = u.tokens() {
        parts.push(format!("{tokens} tokens"));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join(" · ")
    }
}

/// The summary: one row per racer, the worktrees kept, and the winner's merge line.
fn render(ctx: &Ctx, report: &RaceReport, remote: Option<&str>) {
    let mut rows = vec![HEADER.map(String::from)];
    rows.extend(report.racers.iter().map(racer_row));
    ctx.say("");
    print_table(ctx, &rows);
    ctx.say("");
    print_reasons(ctx, report);
    for r in report.racers.iter().filter(|r| r.worktree_kept) {
        ctx.say(format!(
            "worktree kept: {} ({}): {}",
            r.worktree,
            r.branch,
            r.kept_because.as_deref().unwrap_or("kept")
        ));
    }
    print_winner(ctx, report, remote);
}

/// The summary table's columns.
const HEADER: [&str; 8] = [
    "branch",
    "agent",
    "outcome",
    "iterations",
    "turns",
    "proven",
    "diff",
    "usage",
];

/// A racer's row of the summary table.
fn racer_row(r: &RacerReport) -> [String; 8] {
    let outcome = if r.winner {
        "won".to_string()
    } else {
        r.outcome.as_str().to_string()
    };
    let proven = match (r.proven, r.total) {
        (Some(p), Some(t)) => format!("{p}/{t}"),
        _ => "-".into(),
    };
    [
        r.branch.clone(),
        r.agent.clone(),
        outcome,
        r.iterations.to_string(),
        r.turns.to_string(),
        proven,
        format!(
            "{} file(s) +{} -{}",
            r.diff.files, r.diff.insertions, r.diff.deletions
        ),
        usage_text(&r.usage),
    ]
}

/// The table, each column as wide as its widest cell, the header in bold.
fn print_table(ctx: &Ctx, rows: &[[String; 8]]) {
    let widths: Vec<usize> = (0..8)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        let line = line.join("  ").trim_end().to_string();
        ctx.say(if i == 0 { ctx.bold(&line) } else { line });
    }
}

/// Why the others ended, where the lines above did not say it already.
fn print_reasons(ctx: &Ctx, report: &RaceReport) {
    for r in &report.racers {
        if !r.winner
            && r.outcome != RacerOutcome::Stopped
            && !r.reason.is_empty()
            && !r.reason_shown
        {
            ctx.say(format!("{}: {}", r.branch, r.reason));
        }
    }
}

/// Who won and how to merge it: a racer here, another machine's through the remote, or no one.
fn print_winner(ctx: &Ctx, report: &RaceReport, remote: Option<&str>) {
    let remote_winner = report.racers.iter().all(|r| !r.winner);
    match &report.winner {
        Some(branch) if remote_winner => {
            let remote = remote.unwrap_or("origin");
            ctx.say(format!(
                "{} {branch} claimed race {} first; merge it with:",
                ctx.yellow("lost:"),
                report.race_id.as_deref().unwrap_or("?")
            ));
            ctx.say(format!(
                "  git fetch {remote} && git merge {remote}/{branch}"
            ));
        }
        Some(branch) => {
            ctx.say(format!(
                "{} {branch} proved the goal done first; merge it with:",
                ctx.green("won:")
            ));
            ctx.say(format!("  git merge {branch}"));
        }
        None => {
            let why = if report.interrupted {
                "interrupted"
            } else {
                "no racer proved the goal done"
            };
            ctx.say(format!(
                "{} {why}; each racer's iterations are on its branch (continue one with `git switch <branch>` and `goal run`)",
                ctx.yellow("no winner:")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn each_racer_gets_every_run_option_but_the_race_s_own() {
        let cases: &[(&[&str], &[&str], &[&str])] = &[
            (
                &[
                    "goal",
                    "-C",
                    "x",
                    "--json",
                    "run",
                    "Say hi",
                    "-c",
                    "a",
                    "-c",
                    "b",
                    "--agent",
                    "claude",
                    "--agent",
                    "codex",
                    "--agent-arg",
                    "--model",
                    "--race",
                    "3",
                    "--keep-worktrees",
                    "--max-iterations",
                    "4",
                    "--idle-timeout",
                    "5m",
                    "--detached-ok",
                ],
                &[
                    "run",
                    "--criterion=a",
                    "--criterion=b",
                    "--agent-arg=--model",
                    "--max-iterations=4",
                    "--idle-timeout=5m",
                    "--detached-ok",
                ],
                &["Say hi"],
            ),
            (
                &["goal", "run", "--race=2", "--", "sh", "x.sh", "{prompt}"],
                &["run"],
                &["--", "sh", "x.sh", "{prompt}"],
            ),
        ];
        for (argv, want_options, want_tail) in cases {
            let (options, tail) = racer_args(
                <crate::cli::Cli as clap::CommandFactory>::command(),
                os(argv),
            )
            .unwrap();
            assert_eq!(options, os(want_options), "{argv:?}");
            assert_eq!(tail, os(want_tail), "{argv:?}");
            // What a racer is given parses as one `goal run` with one agent and no race.
            let mut child = os(&["goal", "-C", "wt", "--json"]);
            child.extend(options);
            if argv.contains(&"claude") {
                child.push("--agent=claude".into());
            }
            child.extend(tail);
            let cli = crate::cli::Cli::try_parse_from(&child).unwrap();
            let crate::cli::Command::Run(run) = cli.command else {
                panic!("not a run: {child:?}");
            };
            assert!(run.race.is_none() && !run.keep_worktrees);
            assert!(run.agent.len() <= 1);
        }
    }

    #[test]
    fn racers_are_two_or_more() {
        assert_eq!(parse_racers("2"), Ok(2));
        assert_eq!(parse_racers("12"), Ok(12));
        for bad in ["1", "0", "-3", "two", ""] {
            assert!(parse_racers(bad).is_err(), "{bad}");
        }
    }
}
