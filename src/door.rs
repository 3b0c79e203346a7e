//! The commit door: the one way a goal commit is made. A [`Commit`] is prepared (trailers, the
//! ticks a housekeeping commit may carry), staged, held to the gate, passed through the user's
//! hooks, journaled, signed as git config says, and made; a killed command's journal is finished
//! by the next one that takes the lock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::gate;
use crate::goal_file::GoalFile;
use crate::repo::{Oid, Stage, Staging};
use crate::trailers::{GoalAction, GoalTrailers};
use crate::user_hooks::{Hooks, restore_trailers};
use crate::workspace::{Lock, Workspace, write_atomic};

/// The temporary index files the user's hooks are given, in the worktree's git dir.
const HOOK_INDEX_PREFIX: &str = "goal-hook-index-";

/// A goal commit about to be made.
pub struct Commit<'a> {
    pub action: GoalAction,
    pub subject: String,
    pub body: Vec<String>,
    pub stage: Stage,
    pub evidence: Vec<String>,
    pub material_change: Option<String>,
    /// Goal files other than GOAL.md to write (Some) or delete (None) in the same commit.
    pub other: Vec<(PathBuf, Option<Vec<u8>>)>,
    /// The status trailer when it is not GOAL.md's own (`abandoned`).
    pub status: Option<&'a str>,
    /// The `goal run` this commit belongs to (`Goal-Run`), and the run's agent that made it.
    pub run: Option<String>,
    pub run_agent: Option<String>,
    /// What the run's agent CLI used for the turns this commit records (`Goal-Usage`).
    pub usage: Option<crate::usage::Usage>,
    /// Confirmed weakening findings (`Goal-Tests-Weakened`, one each).
    pub tests_weakened: Vec<String>,
    /// What the exams showed without refusing (`Goal-Tests-Changed`, one each).
    pub tests_changed: Vec<String>,
    /// A goal of guards only, confirmed (`Goal-Guards-Only: confirmed`).
    pub guards_only: bool,
    /// What the mutation gate refused, confirmed (`Goal-Mutants-Confirmed`, one each).
    pub mutants_confirmed: Vec<String>,
    /// The stagnation verdict of an iteration commit (`Goal-Verdict`).
    pub verdict: Option<&'static str>,
    /// A `goal run`'s budget, on the run's first commit (`Goal-Budget`).
    pub budget: Option<String>,
    /// The commit the goal started from, on its init commit (`Goal-Base`).
    pub base: Option<String>,
}

/// Commits that record no progress (block, resume, criteria, escalate, restore) carry only the ticks that
/// are proven on what they commit; other ticks stay in the working file for the next `iterate`.
fn housekeeping(action: GoalAction) -> bool {
    matches!(
        action,
        GoalAction::Block
            | GoalAction::Resume
            | GoalAction::Criteria
            | GoalAction::Escalate
            | GoalAction::Restore
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
        Some((_, Some(bytes))) => crate::store::ledger(
            Some(bytes),
            &evidence_rel,
            Some(crate::store::read_witness(&ws.witness_path())),
        )?,
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
    pub fn new(action: GoalAction, subject: impl Into<String>) -> Self {
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
            run_agent: None,
            usage: None,
            tests_weakened: Vec::new(),
            tests_changed: Vec::new(),
            guards_only: false,
            mutants_confirmed: Vec::new(),
            verdict: None,
            budget: None,
            base: None,
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
        trailers.run_agent = self.run_agent.filter(|_| trailers.run.is_some());
        trailers.usage = self.usage;
        trailers.tests_weakened = self.tests_weakened;
        trailers.tests_changed = self.tests_changed;
        trailers.guards_only = self.guards_only;
        trailers.mutants_confirmed = self.mutants_confirmed;
        trailers.verdict = self.verdict.map(str::to_string);
        trailers.budget = self.budget;
        trailers.base = self.base;
        // What `git commit --no-verify` leaves no trace of, a goal commit records.
        trailers.hooks_skipped = ws.no_verify;
        trailers.assisted_by = crate::person::agent();
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

/// A goal commit ready to be made: the goal files' new contents and the message. It is also the
/// redo log a committing command keeps in the git dir until its commit exists, so that the next
/// command can finish it after a crash.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    message: String,
    stage: Stage,
    /// GOAL.md's new content; None when the goal files are deleted.
    goal: Option<String>,
    /// Other goal files' new contents (None: deleted).
    other: Vec<(PathBuf, Option<String>)>,
    /// GOAL.md as it goes into the commit, when that differs from the file on disk.
    staged_goal: Option<String>,
}

impl Pending {
    pub fn new(
        goal: Option<&GoalFile>,
        staged_goal: Option<&GoalFile>,
        other: &[(PathBuf, Option<Vec<u8>>)],
        message: &str,
        stage: Stage,
    ) -> Pending {
        let rendered = goal.map(GoalFile::render);
        let staged_goal = staged_goal
            .map(GoalFile::render)
            .filter(|s| Some(s) != rendered.as_ref());
        let other = other
            .iter()
            .map(|(rel, bytes)| {
                (
                    rel.clone(),
                    bytes
                        .as_ref()
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                )
            })
            .collect();
        Pending {
            message: message.to_string(),
            stage,
            goal: rendered,
            other,
            staged_goal,
        }
    }

    /// The goal files as they go into the commit, whatever the working tree holds now.
    fn changes(&self, goal_rel: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let mut changes: Vec<(PathBuf, Option<Vec<u8>>)> = self
            .other
            .iter()
            .map(|(rel, text)| (rel.clone(), text.as_ref().map(|t| t.clone().into_bytes())))
            .collect();
        let goal = self.staged_goal.as_ref().or(self.goal.as_ref());
        changes.push((goal_rel.to_path_buf(), goal.map(|t| t.clone().into_bytes())));
        changes
    }
}

impl Workspace {
    /// Take this worktree's goal lock and finish (or undo) what a killed goal process left.
    pub fn lock(&self) -> Result<Lock> {
        let lock = self.take_lock()?;
        self.recover()?;
        Ok(lock)
    }

    fn journal_path(&self) -> PathBuf {
        self.repo.git_dir().join(crate::store::JOURNAL_FILE)
    }

    /// Finish what a killed `goal` process left in its journal, and clear what it left behind:
    /// temporary files in the goal folder and git lock files it was holding.
    fn recover(&self) -> Result<()> {
        self.remove_stale_temporaries();
        self.remove_hook_indexes();
        let path = self.journal_path();
        let Ok(bytes) = std::fs::read(&path) else {
            return Ok(());
        };
        let since = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
        self.remove_stale_git_locks(since);
        let remove = || std::fs::remove_file(&path).map_err(Error::io("cannot remove", &path));
        let Ok(journal) = serde_json::from_slice::<Pending>(&bytes) else {
            crate::context::warn_line(format!(
                "goal: warning: dropped an unreadable journal {} left by a killed goal process",
                path.display()
            ));
            return remove();
        };
        if let Some(head) = self.repo.head_id()?
            && self.repo.commit_info(head)?.message == journal.message
        {
            return remove();
        }
        let subject = journal.message.lines().next().unwrap_or("").to_string();
        crate::context::warn_line(format!(
            "goal: finishing `{subject}`, interrupted by a killed goal process"
        ));
        // The user's hooks passed this commit before its journal was written: it is only made.
        let finished = self
            .write_files(journal.goal.as_deref(), &journal.other)
            .and_then(|()| {
                let staging = self.stage(&journal, None)?;
                self.repo.finish_commit(&staging, &journal.message)
            });
        if let Err(e) = finished {
            crate::context::warn_line(format!(
                "goal: warning: could not finish `{subject}` ({e}); the goal files are left as they are"
            ));
        }
        remove()
    }

    /// `.goal-tmp-*` files in the goal folder: a write that a killed process never renamed.
    fn remove_stale_temporaries(&self) {
        let Ok(entries) = std::fs::read_dir(self.abs(&self.goal_dir)) else {
            return;
        };
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(".goal-tmp-")
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Temporary index files the user's hooks were given by a goal process that was killed.
    fn remove_hook_indexes(&self) {
        let Ok(entries) = std::fs::read_dir(self.repo.git_dir()) else {
            return;
        };
        for entry in entries.flatten() {
            if entry
                .file_name()
                .to_string_lossy()
                .starts_with(HOOK_INDEX_PREFIX)
            {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }

    /// Git lock files created while a journaled command ran: that command was killed holding them.
    fn remove_stale_git_locks(&self, since: Option<std::time::SystemTime>) {
        let Some(since) = since else {
            return;
        };
        let since = since - Duration::from_secs(1);
        for lock in self.repo.lock_files() {
            let fresh = std::fs::metadata(&lock)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= since);
            if fresh && std::fs::remove_file(&lock).is_ok() {
                crate::context::warn_line(format!(
                    "goal: removed {}, left by a killed goal process",
                    lock.display()
                ));
            }
        }
    }

    fn write_files(&self, goal: Option<&str>, other: &[(PathBuf, Option<String>)]) -> Result<()> {
        for (rel, content) in other {
            self.put(rel, content.as_deref().map(str::as_bytes))?;
        }
        self.put(&self.goal_rel, goal.map(str::as_bytes))?;
        if goal.is_none() {
            // The folder goes too when `goal` leaves nothing of its own in it.
            let _ = std::fs::remove_dir(self.abs(&self.goal_dir));
        }
        Ok(())
    }

    /// The commit's tree, staged (chained onto `after`, a commit not made yet) and held to the
    /// same gate as the pre-commit hook.
    fn stage(&self, pending: &Pending, after: Option<&Staging>) -> Result<Staging> {
        let staging = self.repo.stage(
            pending.stage,
            &self.goal_dir,
            after,
            &pending.changes(&self.goal_rel),
        )?;
        if let Err(e) = check_commit(self, &staging, &pending.message) {
            self.repo.discard(&staging);
            return Err(e);
        }
        Ok(staging)
    }

    /// Make the commits of `pending` one after the other, as `git commit` would: every one is
    /// staged, held to the gate and passed through the user's `pre-commit`, `prepare-commit-msg`
    /// and `commit-msg` hooks before the first is made or any goal file is written, so a refusal
    /// of the second commit of `done` or `init --replace` leaves everything as it was.
    ///
    /// git's CLI cannot run pre-commit on a commit whose parent does not exist yet, so the second
    /// commit's hooks see its exact tree in a temporary index (GIT_INDEX_FILE) while HEAD is still
    /// the commit before the first: a hook that diffs the index against HEAD sees both commits'
    /// changes together.
    pub fn commit_all(&self, mut pending: Vec<Pending>) -> Result<Vec<Oid>> {
        let hooks =
            (!self.no_verify).then(|| Hooks::new(self.repo.hooks_dir(), self.root().to_path_buf()));
        let refusing = hooks.as_ref().filter(|h| h.any_refusing());
        let index_file = self
            .repo
            .git_dir()
            .join(format!("{HOOK_INDEX_PREFIX}{}", std::process::id()));
        let mut staged: Vec<Staging> = Vec::new();
        for p in pending.iter_mut() {
            let result = self.stage(p, staged.last()).and_then(|mut staging| {
                if let Some(hooks) = refusing {
                    let checked = self.run_hooks(hooks, p, &mut staging, &index_file);
                    let _ = std::fs::remove_file(&index_file);
                    if let Err(e) = checked {
                        self.repo.discard(&staging);
                        return Err(e);
                    }
                }
                Ok(staging)
            });
            match result {
                Ok(staging) => staged.push(staging),
                Err(e) => {
                    for s in &staged {
                        self.repo.discard(s);
                    }
                    return Err(e);
                }
            }
        }
        let mut made = Vec::new();
        if self.repo.head_detached() {
            crate::context::warn_line(format!(
                "goal: warning: {}",
                crate::workspace::DETACHED_WARNING
            ));
        }
        for (i, (p, staging)) in pending.iter().zip(&staged).enumerate() {
            match self.commit_journaled(p, staging) {
                Ok(oid) => made.push(oid),
                Err(e) => {
                    for s in &staged[i..] {
                        self.repo.discard(s);
                    }
                    return Err(e);
                }
            }
            if let Some(hooks) = &hooks {
                // As with git, post-commit cannot undo the commit: its exit status is ignored.
                let _ = hooks.run("post-commit", &[], None, None);
            }
        }
        Ok(made)
    }

    /// pre-commit on exactly the staged tree, then the message hooks; the gate again on
    /// whatever they changed, and goal's trailers put back where a hook hid them.
    fn run_hooks(
        &self,
        hooks: &Hooks,
        pending: &mut Pending,
        staging: &mut Staging,
        index_file: &Path,
    ) -> Result<()> {
        self.repo.write_hook_index(staging, index_file)?;
        hooks.run("pre-commit", &[], Some(index_file), Some(staging.tree))?;
        let mut changed = self.repo.reread_hook_index(staging, index_file)?;
        if hooks.find("prepare-commit-msg").is_some() || hooks.find("commit-msg").is_some() {
            let file = self.repo.git_dir().join("COMMIT_EDITMSG");
            write_atomic(&file, pending.message.as_bytes())?;
            let arg = file.clone().into_os_string();
            hooks.run(
                "prepare-commit-msg",
                &[arg.clone(), "message".into()],
                Some(index_file),
                Some(staging.tree),
            )?;
            hooks.run("commit-msg", &[arg], Some(index_file), Some(staging.tree))?;
            let edited = std::fs::read_to_string(&file)
                .map_err(Error::io("cannot read the commit message", &file))?;
            let message = restore_trailers(&pending.message, &edited);
            if message != pending.message {
                pending.message = message;
                changed = true;
            }
        }
        if changed {
            check_commit(self, staging, &pending.message)?;
        }
        Ok(())
    }

    /// Journal, write the goal files, commit; on failure put the files back as they were.
    fn commit_journaled(&self, pending: &Pending, staging: &Staging) -> Result<Oid> {
        let journal_path = self.journal_path();
        let journal_bytes = serde_json::to_vec(pending)
            .map_err(|e| Error::internal("write the pending commit", e))?;
        let mut touched: Vec<PathBuf> = pending.other.iter().map(|(rel, _)| rel.clone()).collect();
        touched.push(self.goal_rel.clone());
        let backup: Vec<(PathBuf, Option<Vec<u8>>)> = touched
            .into_iter()
            .map(|rel| {
                let old = std::fs::read(self.abs(&rel)).ok();
                (rel, old)
            })
            .collect();
        // Folders the write creates go again when the commit fails.
        let mut created = Vec::new();
        let mut dir = self.abs(&self.goal_dir);
        while dir.starts_with(self.root()) && dir != self.root() && !dir.exists() {
            created.push(dir.clone());
            dir.pop();
        }
        write_atomic(&journal_path, &journal_bytes)?;
        crate::fault::point("commit: journal written");
        let result = self
            .write_files(pending.goal.as_deref(), &pending.other)
            .and_then(|()| {
                crate::fault::point("commit: files written");
                self.repo.finish_commit(staging, &pending.message)
            });
        crate::fault::point("commit: committed, journal still there");
        if result.is_ok() {
            std::fs::remove_file(&journal_path)
                .map_err(Error::io("cannot remove", &journal_path))?;
        } else {
            // Refused or failed before the commit: put the files back as they were.
            for (rel, old) in &backup {
                let _ = self.put(rel, old.as_deref());
            }
            for dir in &created {
                let _ = std::fs::remove_dir(dir);
            }
            let _ = std::fs::remove_file(&journal_path);
        }
        result
    }

    fn put(&self, rel: &Path, content: Option<&[u8]>) -> Result<()> {
        let path = self.abs(rel);
        match content {
            Some(bytes) => write_atomic(&path, bytes),
            None => match std::fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Error::io("cannot remove", path)(e)),
            },
        }
    }
}

/// The gate for `goal`'s own commits.
fn check_commit(ws: &Workspace, staged: &Staging, message: &str) -> Result<()> {
    check_tree(
        &ws.repo,
        &ws.goal_dir,
        &ws.goal_rel,
        staged.tree,
        staged.parent_tree,
        Some(message),
    )
}

/// Read what a commit stages and evaluate the gate on it.
pub fn check_tree(
    repo: &crate::repo::Repo,
    goal_dir: &Path,
    goal_rel: &Path,
    staged_tree: Oid,
    head_tree: Option<Oid>,
    message: Option<&str>,
) -> Result<()> {
    let staged_bytes = repo.file_in_tree(staged_tree, goal_rel)?;
    let staged_goal = match staged_bytes
        .as_deref()
        .map(crate::goal_file::GoalFile::parse_bytes)
    {
        None => None,
        Some(Ok(g)) => Some(g),
        Some(Err(e)) => {
            let input_err = Err((e.line, e.message));
            let ledger = crate::evidence::Ledger::default();
            let input = gate::GateInput {
                head_goal: None,
                staged_goal: input_err,
                ledger: &ledger,
                tree: "",
                message,
            };
            return Err(gate::refusal(&gate::evaluate(&input), goal_rel));
        }
    };
    let Some(staged_goal) = staged_goal else {
        return Ok(());
    };
    let head_goal = match head_tree {
        Some(t) => repo
            .file_in_tree(t, goal_rel)?
            .and_then(|b| crate::goal_file::GoalFile::parse_bytes(&b).ok()),
        None => None,
    };
    let evidence_rel = goal_dir.join(crate::store::EVIDENCE_FILE);
    let ledger = crate::store::ledger(
        repo.file_in_tree(staged_tree, &evidence_rel)?.as_deref(),
        &evidence_rel,
        Some(crate::store::read_witness(&crate::store::witness_path(
            repo,
        ))),
    )?;
    let tree = repo.tree_without(staged_tree, goal_dir)?.to_string();
    let input = gate::GateInput {
        head_goal: head_goal.as_ref(),
        staged_goal: Ok(Some(&staged_goal)),
        ledger: &ledger,
        tree: &tree,
        message,
    };
    let violations = gate::evaluate(&input);
    if violations.is_empty() {
        return Ok(());
    }
    let refusal = gate::refusal(&violations, goal_rel);
    let unstaged = repo.file_in_tree(staged_tree, &evidence_rel)?.is_none();
    match unstaged
        .then(|| ignored_evidence(repo, &evidence_rel))
        .flatten()
    {
        Some(rule) => Err(gate::ignored_evidence(refusal, &evidence_rel, &rule)),
        None => Err(refusal),
    }
}

/// The ignore rule that keeps evidence.jsonl out of a commit, when the working tree has one.
fn ignored_evidence(repo: &crate::repo::Repo, evidence_rel: &Path) -> Option<String> {
    repo.root().join(evidence_rel).is_file().then_some(())?;
    repo.ignore_rule(evidence_rel)
}
