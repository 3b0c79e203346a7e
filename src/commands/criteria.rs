//! `goal criteria add|edit|remove|lint`: change the acceptance criteria (each change a commit).

use serde_json::json;

use super::{criterion_number, short};
use crate::context::Ctx;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, one_line};
use crate::lint;
use crate::material;
use crate::pin;
use crate::trailers::GoalAction;
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
    /// Flag criteria that cannot be checked (exit 1 when any).
    Lint,
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    let flags = match &command {
        Command::Add { commit, .. }
        | Command::Edit { commit, .. }
        | Command::Remove { commit, .. }
        | Command::Pin { commit, .. } => commit.clone(),
        Command::Lint => super::CommitFlags::default(),
    };
    let ws = Workspace::open(ctx)?.with_no_verify(flags.no_verify);
    if matches!(command, Command::Lint) {
        return run_lint(ctx, &ws.goal()?);
    }
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let before = goal.criteria_texts();
    let (subject, material_change) = match &command {
        Command::Add {
            text,
            phase,
            verify,
            guard,
            ..
        } => {
            let mut text = one_line(text);
            if text.is_empty() {
                return Err(Error::usage(
                    "the criterion text is empty",
                    "goal criteria add \"<observable outcome>\"",
                ));
            }
            let given = match (verify, guard) {
                (Some(c), _) => Some((c, pin::Kind::Acceptance)),
                (None, Some(c)) => Some((c, pin::Kind::Guard)),
                (None, None) => None,
            };
            if let Some((command, kind)) = given {
                let flag = format!("--{}", kind.keyword());
                if pin::parse(&text).is_some() {
                    return Err(Error::usage(
                        format!(
                            "the criterion text already ends with a pin, and {flag} gives another"
                        ),
                        format!(
                            "give the command once: either `({}: `<cmd>`)` in the text or {flag}",
                            kind.keyword()
                        ),
                    ));
                }
                let argv = shell_words::split(command).map_err(|e| {
                    Error::usage(
                        format!("{flag} `{command}` does not split into words: {e}"),
                        format!(
                            "quote it as you would in a shell, e.g. {flag} \"pytest -k 'a and b'\""
                        ),
                    )
                })?;
                text = pin::with_kind_pin(&text, Some(&argv), kind);
            }
            check_pin(
                &text,
                "goal criteria add \"<text>\" --verify \"<test command>\"",
            )?;
            let phase_index = match phase {
                None if goal.phases.is_empty() => None,
                None => goal.current_phase().map(|p| p.number - 1),
                Some(n) if *n >= 1 && *n <= goal.phases.len() => Some(n - 1),
                Some(n) => {
                    return Err(Error::usage(
                        format!("there is no phase {n}"),
                        format!("phases are numbered 1 to {}", goal.phases.len()),
                    ));
                }
            };
            let number = goal.add_criterion(&text, phase_index);
            if let Some(f) = lint::lint(number, &text).filter(|f| !f.verifiable) {
                ctx.note(format!(
                    "warning: criterion {number} \"{text}\" is not verifiable: {}",
                    f.reason
                ));
            }
            (format!("add criterion {number} \"{text}\""), None)
        }
        Command::Edit {
            number,
            texts,
            confirm,
            ..
        } => {
            let number = criterion_number(&goal, *number)?;
            let texts: Vec<String> = texts
                .iter()
                .map(|t| one_line(t))
                .filter(|t| !t.is_empty())
                .collect();
            if texts.is_empty() {
                return Err(Error::usage(
                    "the new criterion text is empty",
                    "goal criteria edit N \"<text>\"",
                ));
            }
            let old = goal.criteria[number - 1].text.clone();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            // The requirement is compared here; a changed pin is caught by the comparison below.
            let bases: Vec<&str> = refs.iter().map(|t| pin::base(t)).collect();
            let reason = material::rewording(pin::base(&old), &bases);
            let change = match reason {
                Some(reason) if !confirm => {
                    return Err(Error::refused(
                        format!(
                            "rewording criterion {number} \"{old}\" is a material change: it {reason}"
                        ),
                        format!(
                            "keep the requirement, or confirm the change with `goal criteria edit {number} … --confirm`"
                        ),
                    ));
                }
                Some(reason) => Some(format!(
                    "criterion {number} \"{old}\" → \"{}\" ({reason})",
                    texts.join("\" + \"")
                )),
                None => None,
            };
            for t in &texts {
                check_pin(t, &format!("goal criteria edit {number} \"<text>\""))?;
            }
            goal.edit_criterion(number, &texts);
            let verb = if texts.len() > 1 { "split" } else { "edit" };
            (format!("{verb} criterion {number}"), change)
        }
        Command::Remove {
            number, confirm, ..
        } => {
            let number = criterion_number(&goal, *number)?;
            let old = goal.criteria[number - 1].text.clone();
            if !confirm {
                return Err(Error::refused(
                    format!("removing criterion {number} \"{old}\" is a material change"),
                    format!("keep it, or confirm with `goal criteria remove {number} --confirm`"),
                ));
            }
            goal.remove_criterion(number);
            (
                format!("remove criterion {number}"),
                Some(format!("removed criterion {number} \"{old}\"")),
            )
        }
        Command::Pin {
            number,
            argv,
            guard,
            ..
        } => {
            let number = criterion_number(&goal, *number)?;
            pin::check_pinnable(argv).map_err(|why| {
                Error::refused(
                    format!("`{}` cannot be pinned: {why}", pin::render(argv)),
                    format!("goal criteria pin {number} -- <the test command that proves it>"),
                )
            })?;
            let old = goal.criteria[number - 1].text.clone();
            let kind = if *guard {
                pin::Kind::Guard
            } else {
                pin::Kind::Acceptance
            };
            let new = pin::with_kind_pin(&old, Some(argv), kind);
            if new == old {
                ctx.say(format!(
                    "criterion {number} is already pinned to `{}`",
                    pin::render(argv)
                ));
                return Ok(0);
            }
            goal.edit_criterion(number, std::slice::from_ref(&new));
            let what = if *guard { " as a guard" } else { "" };
            (
                format!("pin criterion {number}{what} to `{}`", pin::render(argv)),
                None,
            )
        }
        Command::Lint => unreachable!("handled above"),
    };
    goal.set_updated(&crate::context::now_rfc3339());
    // The gate's own comparison has the last word, so no commit can surprise the hook.
    let confirmed = matches!(
        command,
        Command::Edit { confirm: true, .. }
            | Command::Remove { confirm: true, .. }
            | Command::Pin { confirm: true, .. }
    );
    let changes = material::compare(&before, &goal.criteria_texts());
    let material_change = match (material_change, changes.first()) {
        (Some(record), _) => Some(record),
        (None, None) => None,
        (None, Some(c)) if !confirmed => {
            return Err(Error::refused(
                format!(
                    "this changes criterion {} \"{}\" materially: {}",
                    c.number, c.text, c.reason
                ),
                match &command {
                    Command::Pin { number, guard, .. } => format!(
                        "keep the pin, or confirm the change with `goal criteria pin {number}{} --confirm -- <command>`",
                        if *guard { " --guard" } else { "" }
                    ),
                    _ => "keep the requirement, or confirm the change with --confirm".to_string(),
                },
            ));
        }
        (None, Some(_)) => Some(
            changes
                .iter()
                .map(|c| format!("criterion {} \"{}\" {}", c.number, c.text, c.reason))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    };
    // A pin runs at the worktree root: one written from a subfolder may name paths from there.
    if !ws.here.is_empty()
        && matches!(
            &command,
            Command::Pin { .. }
                | Command::Add {
                    verify: Some(_),
                    ..
                }
                | Command::Add { guard: Some(_), .. }
        )
    {
        ctx.note(format!(
            "warning: pinned commands run at the worktree root, not in {}/: write paths from the root (e.g. `pytest {}/tests`), or the pin will not find them",
            ws.here, ws.here
        ));
    }
    let mut commit = Commit::new(GoalAction::Criteria, subject.clone());
    commit.material_change = material_change.clone();
    let oid = commit.make(&ws, Some(&goal), &goal)?;
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

/// A pin written into a criterion must parse and must not grade itself.
fn check_pin(text: &str, retry: &str) -> Result<()> {
    match pin::parse(text) {
        None => Ok(()),
        Some(Err(why)) => Err(Error::usage(why, retry.to_string())),
        Some(Ok(p)) => match pin::check_pinnable(&p.argv) {
            Ok(()) => Ok(()),
            Err(why) => Err(Error::refused(
                format!("`{}` cannot be pinned: {why}", p.command),
                retry.to_string(),
            )),
        },
    }
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
