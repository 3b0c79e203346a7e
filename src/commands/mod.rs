//! One module per command; `run` dispatches with one line per command.

pub mod abandon;
pub mod attempt;
pub mod audit;
pub mod block;
pub mod check;
pub mod completions;
pub mod config;
pub mod criteria;
pub mod demo;
pub mod detect;
pub mod done;
pub mod hook;
pub mod hooks;
pub mod init;
pub mod inject;
pub mod integrate;
pub mod iterate;
pub mod log;
pub mod report;
pub mod restore;
pub mod resume;
pub mod retry;
pub mod run;
pub mod status;
pub mod verify;

use std::path::PathBuf;

use crate::repo::Oid;

use crate::cli::Command;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::repo::Stage;
use crate::trailers::{Action, GoalTrailers};
use crate::workspace::{Pending, Workspace};

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    match command {
        Command::Init(args) => init::run(ctx, args),
        Command::Status(args) => status::run(ctx, args),
        Command::Criteria(cmd) => criteria::run(ctx, cmd),
        Command::Verify(args) => verify::run(ctx, args),
        Command::Check(args) => check::run_check(ctx, args),
        Command::Uncheck(args) => check::run_uncheck(ctx, args),
        Command::Iterate(args) => iterate::run(ctx, args),
        Command::Retry(args) => retry::run(ctx, args),
        Command::Run(args) => run::run(ctx, args),
        Command::Block(args) => block::run(ctx, args),
        Command::Resume(args) => resume::run(ctx, args),
        Command::Done(args) => done::run(ctx, args),
        Command::Abandon(args) => abandon::run(ctx, args),
        Command::Restore(args) => restore::run(ctx, args),
        Command::Log(args) => log::run(ctx, args),
        Command::Audit(args) => audit::run(ctx, args),
        Command::Report(args) => report::run(ctx, args),
        Command::Hooks(cmd) => hooks::run(ctx, cmd),
        Command::Detect(args) => detect::run(ctx, args),
        Command::Inject(args) => inject::run(ctx, args),
        Command::Continuation(args) => inject::run_continuation(ctx, args),
        Command::Attempt(cmd) => attempt::run(ctx, cmd),
        Command::Hook(cmd) => hook::run(ctx, cmd),
        Command::Integrate(cmd) => integrate::run(ctx, cmd),
        Command::Config(args) => config::run(ctx, args),
        Command::Demo(args) => demo::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args),
        Command::Man(args) => completions::run_man(ctx, args),
    }
}

/// The flags of every command that commits.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommitFlags {
    /// Skip your git hooks (pre-commit, commit-msg, …) for this command's commit, as `git commit
    /// --no-verify` does; goal's own gate still applies.
    #[arg(long, short = 'n')]
    pub no_verify: bool,
}

/// A goal commit about to be made.
pub struct Commit<'a> {
    pub action: Action,
    pub subject: String,
    pub body: Vec<String>,
    pub stage: Stage,
    pub evidence: Vec<String>,
    pub material_change: Option<String>,
    /// Goal files other than GOAL.md to write (Some) or delete (None) in the same commit.
    pub other: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// The status trailer when it is not GOAL.md's own (`abandoned`).
    pub status: Option<&'a str>,
    /// The `goal run` this commit belongs to (`Goal-Run`).
    pub run: Option<String>,
    /// Confirmed weakening findings (`Goal-Tests-Weakened`, one each).
    pub tests_weakened: Vec<String>,
    /// A goal of guards only, confirmed (`Goal-Guards-Only: confirmed`).
    pub guards_only: bool,
}

/// Commits that record no progress (block, resume, criteria, escalate, restore) carry only the ticks that
/// are proven on what they commit; other ticks stay in the working file for the next `iterate`.
fn housekeeping(action: Action) -> bool {
    matches!(
        action,
        Action::Block | Action::Resume | Action::Criteria | Action::Escalate | Action::Restore
    )
}

/// `goal` with every tick that is new since HEAD and not proven on HEAD's code taken back.
/// `other`: the goal files this commit writes (a restore brings back its own evidence).
fn proven_ticks_only(
    ws: &Workspace,
    goal: &GoalFile,
    other: &[(PathBuf, Option<Vec<u8>>)],
) -> Result<GoalFile> {
    let head_tree = ws.repo.head_tree()?;
    let head_goal = match head_tree {
        Some(t) => ws
            .repo
            .file_in_tree(t, &ws.goal_rel)?
            .and_then(|b| GoalFile::parse_bytes(&b).ok()),
        None => None,
    };
    let code = match head_tree {
        Some(t) => ws.repo.tree_without(t, &ws.goal_dir)?.to_string(),
        None => String::new(),
    };
    let evidence_rel = ws.evidence_rel();
    let ledger = match other.iter().find(|(rel, _)| *rel == evidence_rel) {
        Some((_, Some(bytes))) => crate::evidence::Ledger::parse(bytes)
            .map_err(|(line, message)| Error::Parse {
                path: evidence_rel.clone(),
                line,
                message,
            })?
            .with_witness(crate::workspace::read_witness(&ws.witness_path())),
        Some((_, None)) => crate::evidence::Ledger::default(),
        None => ws.ledger()?,
    };
    let mut staged = goal.clone();
    for c in &goal.criteria {
        let was = head_goal
            .as_ref()
            .is_some_and(|h| h.criteria.iter().any(|k| k.passed && k.text == c.text));
        if c.passed && !was && ledger.proof(c.number, &c.text, &code).is_err() {
            staged.set_passed(c.number, false);
        }
    }
    Ok(staged)
}

impl<'a> Commit<'a> {
    pub fn new(action: Action, subject: impl Into<String>) -> Self {
        Commit {
            action,
            subject: subject.into(),
            body: Vec::new(),
            stage: Stage::GoalOnly,
            evidence: Vec::new(),
            material_change: None,
            other: Vec::new(),
            status: None,
            run: None,
            tests_weakened: Vec::new(),
            guards_only: false,
        }
    }

    /// Write the goal (None: delete the goal files) and commit, through the gate.
    pub fn make(
        self,
        ws: &Workspace,
        goal: Option<&GoalFile>,
        trailers_of: &GoalFile,
    ) -> Result<Oid> {
        let pending = self.prepare(ws, goal, trailers_of)?;
        let mut made = ws.commit_all(vec![pending])?;
        made.pop()
            .ok_or_else(|| Error::usage("no commit was made", "run the goal command again"))
    }

    /// The commit ready to be made, for [`Workspace::commit_all`] (commands that make two).
    pub fn prepare(
        self,
        ws: &Workspace,
        goal: Option<&GoalFile>,
        trailers_of: &GoalFile,
    ) -> Result<Pending> {
        let staged = match goal {
            Some(g) if housekeeping(self.action) && self.stage == Stage::GoalOnly => {
                Some(proven_ticks_only(ws, g, &self.other)?)
            }
            _ => None,
        };
        let mut trailers = GoalTrailers::of(staged.as_ref().unwrap_or(trailers_of), self.action);
        if let Some(status) = self.status {
            trailers.status = status.to_string();
        }
        trailers.evidence = self.evidence;
        trailers.material_change = self.material_change;
        trailers.run = self.run;
        trailers.tests_weakened = self.tests_weakened;
        trailers.guards_only = self.guards_only;
        // What `git commit --no-verify` leaves no trace of, a goal commit records.
        trailers.hooks_skipped = ws.no_verify;
        let message = trailers.message(&self.subject, &self.body);
        Ok(Pending::new(
            goal,
            staged.as_ref(),
            &self.other,
            &message,
            self.stage,
        ))
    }
}

impl Commit<'_> {
    /// Start a new retry episode in this commit: attempts cleared, the policy kept.
    pub fn new_retry_episode(&mut self, ws: &Workspace) {
        let mut retry = ws.retry_state();
        if !retry.attempts.is_empty() {
            retry.attempts.clear();
            self.other
                .push((ws.retry_rel(), Some(retry.render().into_bytes())));
        }
    }
}

/// Block the goal for a reason `goal` found itself (stagnation, retries exhausted): a Blocked
/// entry, an escalation commit (with `other` files), a line on stderr, and the notify command.
pub fn escalate(
    ctx: &Ctx,
    ws: &Workspace,
    goal: &mut GoalFile,
    subject: String,
    message: &str,
    other: Vec<(PathBuf, Option<Vec<u8>>)>,
) -> Result<Oid> {
    use crate::goal_file::Status;
    goal.set_blocked(message);
    goal.set_status(Status::Blocked);
    goal.set_updated(&crate::context::now_rfc3339());
    let mut commit = Commit::new(Action::Escalate, subject);
    commit.body = vec![message.to_string()];
    commit.other = other;
    let oid = commit.make(ws, Some(goal), goal)?;
    eprintln!(
        "goal: escalated: the goal \"{}\" is blocked — {message}",
        goal.goal
    );
    eprintln!(
        "hint: read the Blocked section with `goal status`, change the approach, then `goal resume`"
    );
    iterate::notify(ctx, ws, &format!("goal blocked: {} — {message}", goal.goal));
    Ok(oid)
}

/// Parse a 1-based criterion number against the goal.
pub fn criterion_number(goal: &GoalFile, number: usize) -> Result<usize> {
    if number == 0 || number > goal.criteria.len() {
        let hint = if goal.criteria.is_empty() {
            "the goal has no criteria yet: add one with `goal criteria add \"<criterion>\"`"
                .to_string()
        } else {
            format!(
                "criteria are numbered 1 to {}: see `goal status`",
                goal.criteria.len()
            )
        };
        return Err(Error::usage(
            format!("there is no criterion {number}"),
            hint,
        ));
    }
    Ok(number)
}

/// The new files a commit brought in (the goal's own left out): at most 10 paths, then a count.
pub fn added_lines(ws: &Workspace, commit: Oid) -> Vec<String> {
    const SHOWN: usize = 10;
    let added = ws
        .repo
        .added_paths(commit, &ws.goal_dir)
        .unwrap_or_default();
    let mut lines: Vec<String> = added.iter().take(SHOWN).map(|p| format!("  {p}")).collect();
    if added.len() > SHOWN {
        lines.push(format!("  and {} more", added.len() - SHOWN));
    }
    lines
}

/// The first folder among `paths` that build tools and test runners make (target/, __pycache__/,
/// node_modules/, …), to point at .gitignore.
fn build_output(paths: &[String]) -> Option<String> {
    const DIRS: &[&str] = &[
        "target",
        "__pycache__",
        ".pytest_cache",
        "node_modules",
        ".mypy_cache",
        ".tox",
        "dist",
        "build",
        ".venv",
        ".gradle",
        "coverage",
    ];
    paths.iter().find_map(|p| {
        let parts: Vec<&str> = p.split('/').collect();
        parts[..parts.len().saturating_sub(1)]
            .iter()
            .position(|c| DIRS.contains(c))
            .map(|i| format!("{}/", parts[..=i].join("/")))
    })
}

/// Say which new files a commit brought in, on stdout for people (nothing with --json).
pub fn print_added(ctx: &Ctx, ws: &Workspace, commit: Option<Oid>) {
    let Some(commit) = commit else {
        return;
    };
    let lines = added_lines(ws, commit);
    if lines.is_empty() || ctx.json {
        return;
    }
    ctx.say(format!("new files committed in {}:", short(commit)));
    for line in lines {
        ctx.say(line);
    }
    let added = ws
        .repo
        .added_paths(commit, &ws.goal_dir)
        .unwrap_or_default();
    if let Some(dir) = build_output(&added) {
        ctx.note(format!(
            "hint: `{dir}` looks like build output or a cache: add it to .gitignore and untrack it with `git rm -r --cached {dir}`, then `goal iterate` again"
        ));
    }
}

/// The short form of a commit id for people.
pub fn short(oid: Oid) -> String {
    oid.to_string()[..10].to_string()
}

/// Refuse to change a goal whose status does not allow it.
pub fn require_in_progress(goal: &GoalFile, what: &str) -> Result<()> {
    use crate::goal_file::Status;
    match goal.status {
        Status::InProgress => Ok(()),
        Status::Blocked => Err(Error::refused(
            format!("the goal is blocked: cannot {what}"),
            "see the Blocked section with `goal status`, then run `goal resume`",
        )),
        Status::Complete => Err(Error::refused(
            format!("the goal is complete: cannot {what}"),
            "finish it with `goal done`; if `goal done` refuses (a criterion is not proven), set it back to in-progress with `goal resume`",
        )),
    }
}
