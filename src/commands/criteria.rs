//! `goal criteria add|pin|edit|remove|surface|lint|approve`: change the acceptance criteria (each change a
//! commit), or approve a pin for `goal mcp`.

use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::lint;
use crate::ops::criteria::{self, Change, Report};
use crate::workspace::Workspace;

/// Change the acceptance criteria. Removing one, or rewording it into a different requirement,
/// is a material change: refused unless --confirm, then recorded in a Goal-Material-Change trailer.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Add a criterion (commit). Pin the test that proves it with --verify (an acceptance
    /// criterion: seen failing on the code before the goal, then passing), or what must stay
    /// true with --guard (a regression suite, a linter: passing at the end, no test lost).
    Add {
        text: String,
        /// Put it in phase N (multi-stage goals).
        #[arg(long, value_name = "N")]
        phase: Option<usize>,
        /// The command that proves it, pinned in GOAL.md as `(verify: `<cmd>`)`: only this
        /// command's passing run proves the criterion.
        #[arg(long = "verify", value_name = "CMD", conflicts_with = "guard")]
        verify: Option<String>,
        /// The command that must keep passing, pinned as `(guard: `<cmd>`)`: it must pass at the
        /// end and run no fewer tests than on the goal's base.
        #[arg(long = "guard", value_name = "CMD")]
        guard: Option<String>,
        #[command(flatten)]
        commit: super::CommitFlags,
    },
    /// Pin the command that proves criterion N (written at the end of its text). Changing or
    /// removing an existing pin, switching its kind, or a guard pin on an unpinned criterion is a
    /// material change and needs --confirm.
    Pin {
        number: usize,
        /// Pin it as a guard (`(guard: `<cmd>`)`): it must keep passing, not fail first.
        #[arg(long)]
        guard: bool,
        /// Accept replacing an existing pin (recorded as a material change).
        #[arg(long)]
        confirm: bool,
        #[command(flatten)]
        commit: super::CommitFlags,
        /// The command and its arguments, after `--`.
        #[arg(last = true, required = true, value_name = "CMD")]
        argv: Vec<String>,
    },
    /// Reword criterion N; several texts split it. Unticks it: prove it again.
    Edit {
        number: usize,
        #[arg(required = true, num_args = 1..)]
        texts: Vec<String>,
        /// Accept a material change (it is recorded and flagged by `goal log`).
        #[arg(long)]
        confirm: bool,
        #[command(flatten)]
        commit: super::CommitFlags,
    },
    /// Remove criterion N: always a material change, so it needs --confirm.
    Remove {
        number: usize,
        #[arg(long)]
        confirm: bool,
        #[command(flatten)]
        commit: super::CommitFlags,
    },
    /// Change the settings that judge the goal, kept in GOAL.md: the test surface (--tests globs
    /// added to the default test paths, or with --tests-only the whole of it) and the mutation
    /// check (--mutants off|report|gate, --mutants-min 0..1), and the bounds of the pins' runs
    /// (--pin-timeout seconds, --pin-memory MiB). What is not given takes its default. Always a material change: it needs --confirm, and is recorded.
    Surface {
        /// A glob of test files (repeatable).
        #[arg(long = "tests", value_name = "GLOB")]
        tests: Vec<String>,
        /// The --tests globs are the whole test surface.
        #[arg(long = "tests-only")]
        tests_only: bool,
        /// The mutation check of `goal done`: off, report or gate.
        #[arg(long, value_name = "MODE")]
        mutants: Option<String>,
        /// The lowest mutation score `gate` accepts (0 to 1; default 0.8).
        #[arg(long = "mutants-min", value_name = "X")]
        mutants_min: Option<String>,
        /// The time bound of each run of a pin, in seconds (GOAL.md's `pin_timeout:`; without
        /// it, `git config goal.pinTimeout`, else 900).
        #[arg(long = "pin-timeout", value_name = "SECONDS")]
        pin_timeout: Option<String>,
        /// The memory bound of each run of a pin, in MiB (GOAL.md's `pin_memory:`; without it,
        /// `git config goal.pinMemory`, else 75 % of the machine's memory).
        #[arg(long = "pin-memory", value_name = "MIB")]
        pin_memory: Option<String>,
        /// Accept the change (recorded as a material change).
        #[arg(long)]
        confirm: bool,
        #[command(flatten)]
        commit: super::CommitFlags,
    },
    /// Flag criteria that cannot be checked (exit 1 when any).
    Lint,
    /// Approve criterion N's pin for `goal mcp`, which runs no pin before a person approved its
    /// command (read it first: it runs as you, in this work tree). A person's own terminal only:
    /// refused where the agent's mark (GOAL_AGENT) is set. Pins you write yourself with `goal
    /// init` or `goal criteria add|pin|edit` are approved as you write them.
    Approve { number: usize },
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    let flags = commit_flags(&command);
    if let Command::Surface {
        tests,
        tests_only,
        mutants,
        mutants_min,
        pin_timeout,
        pin_memory,
        confirm,
        ..
    } = command
    {
        let change = criteria::SurfaceChange {
            tests,
            tests_only,
            mutants,
            mutants_min,
            pin_timeout,
            pin_memory,
            confirm,
        };
        // A bad value is refused before the repository is even looked at.
        change.settings()?;
        let ws = Workspace::open(ctx)?.with_no_verify(flags.no_verify);
        return run_surface(ctx, &ws, &change);
    }
    let ws = Workspace::open(ctx)?.with_no_verify(flags.no_verify);
    if let Command::Approve { number } = command {
        return run_approve(ctx, &ws, number);
    }
    if matches!(command, Command::Lint) {
        return run_lint(ctx, &ws.goal()?);
    }
    let report = criteria::change(&ws, change_of(command))?;
    print_report(ctx, report)
}

/// The commit flags the subcommand was given (`lint` commits nothing: the defaults).
fn commit_flags(command: &Command) -> super::CommitFlags {
    match command {
        Command::Add { commit, .. }
        | Command::Edit { commit, .. }
        | Command::Remove { commit, .. }
        | Command::Pin { commit, .. }
        | Command::Surface { commit, .. } => commit.clone(),
        Command::Lint | Command::Approve { .. } => super::CommitFlags::default(),
    }
}

/// The change to the criteria that `add`, `pin`, `edit` or `remove` asks for.
fn change_of(command: Command) -> Change {
    match command {
        Command::Add {
            text,
            phase,
            verify,
            guard,
            ..
        } => Change::Add {
            text,
            phase,
            verify,
            guard,
        },
        Command::Pin {
            number,
            guard,
            confirm,
            argv,
            ..
        } => Change::Pin {
            number,
            argv,
            guard,
            confirm,
        },
        Command::Edit {
            number,
            texts,
            confirm,
            ..
        } => Change::Edit {
            number,
            texts,
            confirm,
        },
        Command::Remove {
            number, confirm, ..
        } => Change::Remove { number, confirm },
        Command::Lint | Command::Surface { .. } | Command::Approve { .. } => {
            unreachable!("handled above")
        }
    }
}

/// What a change to the criteria reports: the pin already there, or the commit made, its
/// material change and the criteria as they are now.
fn print_report(ctx: &Ctx, report: Report) -> Result<u8> {
    let (subject, oid, material_change, goal) = match report {
        Report::AlreadyPinned { number, command } => {
            ctx.say(format!(
                "criterion {number} is already pinned to `{command}`"
            ));
            return Ok(0);
        }
        Report::Committed {
            subject,
            commit,
            material_change,
            goal,
        } => (subject, commit, material_change, goal),
    };
    if ctx.json {
        ctx.emit_json(&json!({
            "commit": oid.to_string(),
            "material_change": material_change,
            "criteria": goal.criteria.iter().map(|c| json!({"number": c.number, "text": c.text, "passed": c.passed})).collect::<Vec<_>>(),
        }))?;
        return Ok(0);
    }
    ctx.say(format!("{} — committed {}", subject, short(oid)));
    if let Some(change) = &material_change {
        ctx.say(format!("Recorded as a material change: {change}"));
    }
    for c in &goal.criteria {
        ctx.say(format!(
            "  [{}] {}. {}",
            if c.passed { "x" } else { " " },
            c.number,
            c.text
        ));
    }
    Ok(0)
}

fn run_surface(ctx: &Ctx, ws: &Workspace, change: &criteria::SurfaceChange) -> Result<u8> {
    let report = criteria::surface(ws, change)?;
    let settings = &report.goal.settings;
    let material = report
        .commit
        .filter(|_| !report.old.only_stricter(settings))
        .map(|_| format!("settings {} → {settings}", report.old));
    if ctx.json {
        ctx.emit_json(&json!({
            "commit": report.commit.map(|c| c.to_string()),
            "material_change": material,
            "settings": settings.json(),
        }))?;
        return Ok(0);
    }
    match report.commit {
        None => ctx.say(format!(
            "the settings that judge the goal are already {settings}"
        )),
        Some(oid) => {
            ctx.say(format!(
                "the settings that judge the goal: {} → {settings} — committed {}",
                report.old,
                short(oid)
            ));
            match &material {
                Some(change) => ctx.say(format!("Recorded as a material change: {change}")),
                None => ctx.say("A stricter gate: no material change, no confirmation needed"),
            }
        }
    }
    Ok(0)
}

/// `goal criteria approve N`: the approval recorded (or found), and what it lets `goal mcp` do.
fn run_approve(ctx: &Ctx, ws: &Workspace, number: usize) -> Result<u8> {
    let approved = crate::ops::approve::approve(ws, number)?;
    if ctx.json {
        ctx.emit_json(&approved)?;
        return Ok(0);
    }
    let how = if approved.already {
        "was already approved"
    } else {
        "approved"
    };
    ctx.say(format!(
        "criterion {}'s pin `{}` {how}: goal mcp may run it",
        approved.criterion, approved.command
    ));
    Ok(0)
}

fn run_lint(ctx: &Ctx, goal: &GoalFile) -> Result<u8> {
    let findings = lint::lint_all(&goal.criteria_texts());
    let bad = findings.iter().filter(|f| !f.verifiable).count();
    if let Some(warning) = lint::all_guards(&goal.criteria_texts()) {
        ctx.note(warning);
    }
    if ctx.json {
        ctx.emit_json(&findings)?;
    } else {
        for f in &findings {
            let verdict = if f.verifiable {
                ctx.green("ok  ")
            } else {
                ctx.red("VAGUE")
            };
            let flags = if f.flags.is_empty() {
                String::new()
            } else {
                format!(" [{}]", f.flags.join(", "))
            };
            ctx.say(format!(
                "{verdict} {}. {} — {}{flags}",
                f.number, f.text, f.reason
            ));
        }
        let unpinned: Vec<String> = findings
            .iter()
            .filter(|f| f.flags.iter().any(|x| x == "unpinned"))
            .map(|f| f.number.to_string())
            .collect();
        if !unpinned.is_empty() {
            ctx.say(format!(
                "unpinned: criterion {} — any passing test could prove it; pin the test that does with `goal criteria pin N -- <test command>`",
                unpinned.join(", ")
            ));
        }
        if bad > 0 {
            ctx.say(format!(
                "{bad} criterion(s) cannot be checked: reword each into an observable outcome (a command, a test, an exit code, an output) with `goal criteria edit N \"…\"`"
            ));
        }
    }
    Ok(if bad > 0 { 1 } else { 0 })
}
