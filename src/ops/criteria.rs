//! Changing the acceptance criteria: add, edit (or split), remove, pin. Each change is a commit;
//! removing one or rewording it into another requirement is a material change, refused unless
//! confirmed, then recorded in a `Goal-Material-Change` trailer.

use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, one_line};
use crate::lint;
use crate::material;
use crate::pin;
use crate::repo::Oid;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

/// One change of the criteria.
#[derive(Debug, Clone)]
pub enum Change {
    Add {
        text: String,
        phase: Option<usize>,
        verify: Option<String>,
        guard: Option<String>,
    },
    Pin {
        number: usize,
        argv: Vec<String>,
        guard: bool,
        confirm: bool,
    },
    Edit {
        number: usize,
        texts: Vec<String>,
        confirm: bool,
    },
    Remove {
        number: usize,
        confirm: bool,
    },
}

/// What a change came to.
#[derive(Debug)]
pub enum Report {
    /// `pin` with the pin the criterion has already: nothing to commit.
    AlreadyPinned { number: usize, command: String },
    Committed {
        subject: String,
        commit: Oid,
        /// The material change recorded in the commit's trailer.
        material_change: Option<String>,
        goal: Box<GoalFile>,
    },
}

/// Make `change` and commit it.
pub fn change(ws: &Workspace, change: Change) -> Result<Report> {
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if let Some(command) = confirm_command(&change) {
        crate::ops::confirm::check_confirm(true, &command)?;
    }
    // A criterion the agent added in this goal, with no evidence yet, is its own to change.
    let own = match &change {
        Change::Add { .. } => false,
        Change::Pin { number, .. }
        | Change::Edit { number, .. }
        | Change::Remove { number, .. } => {
            crate::person::agent().is_some() && agent_added(ws, &goal, *number)?
        }
    };
    let before = goal.criteria_texts();
    let (subject, material_change) = match &change {
        Change::Add {
            text,
            phase,
            verify,
            guard,
        } => add(&mut goal, text, *phase, verify.as_deref(), guard.as_deref())?,
        Change::Edit {
            number,
            texts,
            confirm,
        } => edit(&mut goal, *number, texts, *confirm || own)?,
        Change::Remove { number, confirm } => remove(&mut goal, *number, *confirm || own)?,
        Change::Pin {
            number,
            argv,
            guard,
            ..
        } => match pin_criterion(&mut goal, *number, argv, *guard)? {
            Ok(made) => made,
            Err(already) => return Ok(already),
        },
    };
    goal.set_updated(&crate::context::now_rfc3339());
    let confirmed = own
        || matches!(
            change,
            Change::Edit { confirm: true, .. }
                | Change::Remove { confirm: true, .. }
                | Change::Pin { confirm: true, .. }
        );
    let material_change = material_record(&change, material_change, &before, &goal, confirmed)?;
    warn_pins_run_at_the_root(ws, &change);
    let material_change = match material_change {
        Some(record) if own => Some(format!(
            "{record} (added by the agent in this goal, with no evidence yet)"
        )),
        other => other,
    };
    let mut commit = Commit::new(GoalAction::Criteria, subject.clone());
    commit.material_change = material_change.clone();
    let oid = commit.make(ws, Some(&goal), &goal)?;
    super::approve::approve_written(ws, &before, &goal.criteria_texts())
        .unwrap_or_else(|e| crate::context::note(format!("warning: {e}")));
    Ok(Report::Committed {
        subject,
        commit: oid,
        material_change,
        goal: Box::new(goal),
    })
}

/// A change made to the goal in memory: the commit's subject and the material change it records.
type Made = (String, Option<String>);

/// `goal criteria add`: the text (with the pin `--verify`/`--guard` gives), in a phase.
fn add(
    goal: &mut GoalFile,
    text: &str,
    phase: Option<usize>,
    verify: Option<&str>,
    guard: Option<&str>,
) -> Result<Made> {
    let text = one_line(text);
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
    let text = match given {
        Some((command, kind)) => with_given_pin(&text, command, kind)?,
        None => text,
    };
    check_pin(
        &text,
        "goal criteria add \"<text>\" --verify \"<test command>\"",
    )?;
    let phase_index = phase_index(goal, phase)?;
    let number = goal.add_criterion(&text, phase_index);
    if let Some(f) = lint::lint(number, &text).filter(|f| !f.verifiable) {
        crate::context::note(format!(
            "warning: criterion {number} \"{text}\" is not verifiable: {}",
            f.reason
        ));
    }
    Ok((format!("add criterion {number} \"{text}\""), None))
}

/// The criterion's text with the pin `--verify`/`--guard` gave (refused when it has one already,
/// or the command does not split into words).
fn with_given_pin(text: &str, command: &str, kind: pin::Kind) -> Result<String> {
    let flag = format!("--{}", kind.keyword());
    if pin::parse(text).is_some() {
        return Err(Error::usage(
            format!("the criterion text already ends with a pin, and {flag} gives another"),
            format!(
                "give the command once: either `({}: `<cmd>`)` in the text or {flag}",
                kind.keyword()
            ),
        ));
    }
    let argv = shell_words::split(command).map_err(|e| {
        Error::usage(
            format!("{flag} `{command}` does not split into words: {e}"),
            format!("quote it as you would in a shell, e.g. {flag} \"pytest -k 'a and b'\""),
        )
    })?;
    Ok(pin::with_kind_pin(text, Some(&argv), kind))
}

/// Where a new criterion goes: the phase asked for (1-based), else the current one.
fn phase_index(goal: &GoalFile, phase: Option<usize>) -> Result<Option<usize>> {
    match phase {
        None if goal.phases.is_empty() => Ok(None),
        None => Ok(goal.current_phase().map(|p| p.number - 1)),
        Some(n) if n >= 1 && n <= goal.phases.len() => Ok(Some(n - 1)),
        Some(n) => Err(Error::usage(
            format!("there is no phase {n}"),
            format!("phases are numbered 1 to {}", goal.phases.len()),
        )),
    }
}

/// `goal criteria edit N <text>…` (more than one text splits it); a material rewording needs
/// `allowed` (a person's `--confirm`, or the agent's own new criterion).
fn edit(goal: &mut GoalFile, number: usize, texts: &[String], allowed: bool) -> Result<Made> {
    let number = super::criterion_number(goal, number)?;
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
    // The requirement is compared here; a changed pin is caught by the comparison after.
    let bases: Vec<&str> = texts.iter().map(|t| pin::base(t)).collect();
    let change = match material::rewording(pin::base(&old), &bases) {
        Some(reason) if !allowed => {
            return Err(Error::refused(
                format!("rewording criterion {number} \"{old}\" is a material change: it {reason}"),
                format!(
                    "keep the requirement, or {}",
                    crate::person::offer(
                        "confirm the change",
                        &format!("goal criteria edit {number} … --confirm")
                    )
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
    Ok((format!("{verb} criterion {number}"), change))
}

/// `goal criteria remove N`: always material, so it needs `allowed`.
fn remove(goal: &mut GoalFile, number: usize, allowed: bool) -> Result<Made> {
    let number = super::criterion_number(goal, number)?;
    let old = goal.criteria[number - 1].text.clone();
    if !allowed {
        return Err(Error::refused(
            format!("removing criterion {number} \"{old}\" is a material change"),
            format!(
                "keep it, or {}",
                crate::person::offer(
                    "confirm",
                    &format!("goal criteria remove {number} --confirm")
                )
            ),
        ));
    }
    goal.remove_criterion(number);
    Ok((
        format!("remove criterion {number}"),
        Some(format!("removed criterion {number} \"{old}\"")),
    ))
}

/// `goal criteria pin N [--guard] -- <command>`: the change made, or the report that the
/// criterion has that pin already (nothing to commit).
fn pin_criterion(
    goal: &mut GoalFile,
    number: usize,
    argv: &[String],
    guard: bool,
) -> Result<std::result::Result<Made, Report>> {
    let number = super::criterion_number(goal, number)?;
    pin::check_pinnable(argv).map_err(|why| Error::CannotPin {
        command: pin::render(argv),
        criterion: None,
        why,
        retry: format!("goal criteria pin {number} -- <the test command that proves it>"),
    })?;
    let old = goal.criteria[number - 1].text.clone();
    let kind = if guard {
        pin::Kind::Guard
    } else {
        pin::Kind::Acceptance
    };
    let new = pin::with_kind_pin(&old, Some(argv), kind);
    if new == old {
        return Ok(Err(Report::AlreadyPinned {
            number,
            command: pin::render(argv),
        }));
    }
    goal.edit_criterion(number, std::slice::from_ref(&new));
    let what = if guard { " as a guard" } else { "" };
    Ok(Ok((
        format!("pin criterion {number}{what} to `{}`", pin::render(argv)),
        None,
    )))
}

/// The material change the commit records. The gate's own comparison has the last word, so no
/// commit can surprise the hook: a material change the step did not name is refused unless
/// `confirmed`, and recorded when it is.
fn material_record(
    change: &Change,
    named: Option<String>,
    before: &[String],
    goal: &GoalFile,
    confirmed: bool,
) -> Result<Option<String>> {
    let changes = material::compare(before, &goal.criteria_texts());
    match (named, changes.first()) {
        (Some(record), _) => Ok(Some(record)),
        (None, None) => Ok(None),
        (None, Some(c)) if !confirmed => Err(Error::refused(
            format!(
                "this changes criterion {} \"{}\" materially: {}",
                c.number, c.text, c.reason
            ),
            match change {
                Change::Pin { number, guard, .. } => format!(
                    "keep the pin, or {}",
                    crate::person::offer(
                        "confirm the change",
                        &format!(
                            "goal criteria pin {number}{} --confirm -- <command>",
                            if *guard { " --guard" } else { "" }
                        )
                    )
                ),
                _ => format!(
                    "keep the requirement, or {}",
                    crate::person::offer("confirm the change", "goal criteria … --confirm")
                ),
            },
        )),
        (None, Some(_)) => Ok(Some(
            changes
                .iter()
                .map(|c| format!("criterion {} \"{}\" {}", c.number, c.text, c.reason))
                .collect::<Vec<_>>()
                .join("; "),
        )),
    }
}

/// A pin runs at the worktree root: one written from a subfolder may name paths from there.
fn warn_pins_run_at_the_root(ws: &Workspace, change: &Change) {
    let pins = matches!(
        change,
        Change::Pin { .. }
            | Change::Add {
                verify: Some(_),
                ..
            }
            | Change::Add { guard: Some(_), .. }
    );
    if pins && !ws.here.is_empty() {
        crate::context::note(format!(
            "warning: pinned commands run at the worktree root, not in {}/: write paths from the root (e.g. `pytest {}/tests`), or the pin will not find them",
            ws.here, ws.here
        ));
    }
}

/// A pin written into a criterion must parse and must not grade itself.
fn check_pin(text: &str, retry: &str) -> Result<()> {
    match pin::parse(text) {
        None => Ok(()),
        Some(Err(why)) => Err(Error::usage(why, retry.to_string())),
        Some(Ok(p)) => match pin::check_pinnable(&p.argv) {
            Ok(()) => Ok(()),
            Err(why) => Err(Error::CannotPin {
                command: p.command,
                criterion: None,
                why,
                retry: retry.to_string(),
            }),
        },
    }
}

/// The command a person runs to make `change` with its confirmation, when it carries one.
fn confirm_command(change: &Change) -> Option<String> {
    match change {
        Change::Pin {
            number,
            argv,
            guard,
            confirm: true,
        } => Some(format!(
            "goal criteria pin {number}{} --confirm -- {}",
            if *guard { " --guard" } else { "" },
            pin::render(argv)
        )),
        Change::Edit {
            number,
            texts,
            confirm: true,
        } => Some(format!(
            "goal criteria edit {number} {} --confirm",
            shell_words::join(texts)
        )),
        Change::Remove {
            number,
            confirm: true,
        } => Some(format!("goal criteria remove {number} --confirm")),
        _ => None,
    }
}

/// Whether criterion `number` was added in this goal by `goal criteria add` (after init, in the
/// goal's own history) and has no evidence yet: the agent that added it may change it without a
/// person's confirmation (the change is still recorded as material).
fn agent_added(ws: &Workspace, goal: &GoalFile, number: usize) -> Result<bool> {
    let Some(text) = goal.criterion(number).map(|c| c.text.clone()) else {
        return Ok(false);
    };
    if ws
        .ledger()?
        .records
        .iter()
        .any(|r| r.criteria_text.contains(&text))
    {
        return Ok(false);
    }
    for info in ws.repo.first_parent_walk()? {
        let info = info?;
        let action = crate::trailers::GoalTrailers::read(&info).and_then(|t| t.action);
        match action {
            Some(GoalAction::Criteria) if added_text(&info.message) == Some(text.as_str()) => {
                return Ok(true);
            }
            Some(GoalAction::Init | GoalAction::Done | GoalAction::Abandon) => return Ok(false),
            _ => {}
        }
    }
    Ok(false)
}

/// The criterion text of an `add criterion N "<text>"` commit's subject.
fn added_text(message: &str) -> Option<&str> {
    let subject = message.lines().next()?;
    let rest = subject
        .strip_prefix("goal: ")
        .unwrap_or(subject)
        .strip_prefix("add criterion ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.strip_prefix(" \"")?.strip_suffix('"')
}

/// The settings `goal criteria surface` asks for, as given (checked by [`surface`]).
#[derive(Debug, Clone, Default)]
pub struct SurfaceChange {
    pub tests: Vec<String>,
    pub tests_only: bool,
    pub mutants: Option<String>,
    pub mutants_min: Option<String>,
    /// The bounds of the pins' runs (seconds, MiB), as given.
    pub pin_timeout: Option<String>,
    pub pin_memory: Option<String>,
    pub confirm: bool,
}

impl SurfaceChange {
    /// The settings it gives: what it does not name takes its default. A bad value is a usage
    /// error (exit 2), before anything is read or written.
    pub fn settings(&self) -> Result<crate::goal_file::Settings> {
        use crate::goal_file::settings::{Mutants, parse_min};
        let mut s = crate::goal_file::Settings {
            tests: self.tests.iter().map(|t| t.trim().to_string()).collect(),
            tests_only: self.tests_only,
            ..Default::default()
        };
        if s.tests.iter().any(String::is_empty) {
            return Err(Error::usage(
                "--tests is empty",
                "give a glob, e.g. `--tests 'checks/**'`",
            ));
        }
        if s.tests_only && s.tests.is_empty() {
            return Err(Error::usage(
                "--tests-only with no --tests would leave no test at all",
                "name the test files: `goal criteria surface --tests '<glob>' --tests-only --confirm`",
            ));
        }
        crate::ops::settings::surface_of(&s).map_err(|e| {
            Error::usage(
                e.to_string().replace("GOAL.md's `tests:` ", "--tests: "),
                "give a valid glob, e.g. `--tests 'checks/**'`",
            )
        })?;
        if let Some(m) = &self.mutants {
            s.mutants = Mutants::parse(m).ok_or_else(|| {
                Error::usage(
                    format!("--mutants `{m}`: expected off, report or gate"),
                    "e.g. `--mutants report`",
                )
            })?;
        }
        if let Some(x) = &self.mutants_min {
            s.mutants_min = parse_min(x).map_err(|why| {
                Error::usage(format!("--mutants-min {why}"), "e.g. `--mutants-min 0.8`")
            })?;
        }
        let bound = |flag: &str, value: &Option<String>, unit: &str, example: &str| {
            value
                .as_deref()
                .map(|v| {
                    crate::goal_file::settings::parse_bound(v).ok_or_else(|| {
                        Error::usage(
                            format!("{flag} `{v}`: expected a whole number ≥ 1 ({unit})"),
                            format!("e.g. `{flag} {example}`"),
                        )
                    })
                })
                .transpose()
        };
        s.pin_timeout = bound("--pin-timeout", &self.pin_timeout, "seconds", "1800")?;
        s.pin_memory = bound("--pin-memory", &self.pin_memory, "MiB", "8192")?;
        Ok(s)
    }

    /// The command a person runs for this change.
    fn command(&self) -> String {
        let mut words = vec!["goal criteria surface".to_string()];
        words.extend(
            self.tests
                .iter()
                .map(|t| format!("--tests {}", shell_words::quote(t))),
        );
        if self.tests_only {
            words.push("--tests-only".into());
        }
        if let Some(m) = &self.mutants {
            words.push(format!("--mutants {m}"));
        }
        if let Some(x) = &self.mutants_min {
            words.push(format!("--mutants-min {x}"));
        }
        if let Some(x) = &self.pin_timeout {
            words.push(format!("--pin-timeout {x}"));
        }
        if let Some(x) = &self.pin_memory {
            words.push(format!("--pin-memory {x}"));
        }
        words.push("--confirm".into());
        words.join(" ")
    }
}

/// What `goal criteria surface` came to: None when the settings are already those.
pub struct SurfaceReport {
    pub commit: Option<Oid>,
    pub old: crate::goal_file::Settings,
    pub goal: Box<GoalFile>,
}

/// Change the settings that judge the goal (GOAL.md's frontmatter): a material change, refused
/// without `--confirm` and recorded in `Goal-Material-Change`, unless it only makes the gate
/// stricter (turning the mutation check on, say).
pub fn surface(ws: &Workspace, change: &SurfaceChange) -> Result<SurfaceReport> {
    let new = change.settings()?;
    crate::ops::confirm::check_confirm(change.confirm, &change.command())?;
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    let old = goal.settings.clone();
    if old == new {
        return Ok(SurfaceReport {
            commit: None,
            old,
            goal: Box::new(goal),
        });
    }
    let record = format!("settings {old} → {new}");
    let stricter = old.only_stricter(&new);
    if !change.confirm && !stricter {
        return Err(Error::refused(
            format!("changing the settings that judge the goal ({record}) is a material change"),
            format!(
                "keep them, or {}",
                crate::person::offer("confirm", &change.command())
            ),
        ));
    }
    goal.set_settings(&new);
    goal.set_updated(&crate::context::now_rfc3339());
    let mut commit = Commit::new(GoalAction::Criteria, format!("change the settings: {new}"));
    if !stricter {
        commit.material_change = Some(record);
    }
    let oid = commit.make(ws, Some(&goal), &goal)?;
    Ok(SurfaceReport {
        commit: Some(oid),
        old,
        goal: Box::new(goal),
    })
}
