//! The goal's home in one worktree: its paths, the lock, atomic writes, and committing a change
//! of the goal files in a way a killed process cannot leave half done.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::repo::Oid;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::gate;
use crate::goal_file::GoalFile;
use crate::goal_file::lean::Lean;
use crate::repo::{Repo, Stage, Staging};
use crate::user_hooks::{Hooks, restore_trailers};

pub const DEFAULT_GOAL_DIR: &str = ".agents/goal";

/// The temporary index files the user's hooks are given, in the worktree's git dir.
const HOOK_INDEX_PREFIX: &str = "goal-hook-index-";

/// An open repository with the goal's paths resolved and checked.
pub struct Workspace {
    pub repo: Repo,
    pub config: Config,
    /// The goal folder, relative to the worktree root (`.agents/goal` unless `--file` says otherwise).
    pub goal_dir: PathBuf,
    /// GOAL.md relative to the root.
    pub goal_rel: PathBuf,
    /// Skip the user's git hooks (`--no-verify`); goal's own gate always applies.
    pub no_verify: bool,
    /// The folder `goal` was started in (or -C), relative to the worktree root ("" at the root).
    pub here: String,
}

/// The OS lock on this worktree's goal; released when dropped (or when the process dies).
pub struct Lock {
    _file: File,
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

/// What a commit on a detached HEAD is told (status says it too).
pub const DETACHED_WARNING: &str =
    "HEAD is detached: these commits are on no branch — git switch -c <name> keeps them";

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Write `bytes` to `path` atomically: a temporary file in the same folder, fsync, rename.
///
/// A file that exists keeps its mode; a new one gets the umask's (0644 under umask 022), as an
/// editor or `git checkout` would give it — never the temporary file's private 0600.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create", dir))?;
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    // The open applies the umask to 0666, as `open(2)` does for any new file.
    let mut tmp = tempfile::Builder::new()
        .prefix(".goal-tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(Error::io("cannot create a temporary file in", dir))?;
    if let Some(permissions) = existing {
        tmp.as_file()
            .set_permissions(permissions)
            .map_err(Error::io(
                "cannot set the mode of",
                tmp.path().to_path_buf(),
            ))?;
    }
    tmp.write_all(bytes)
        .map_err(Error::io("cannot write", tmp.path().to_path_buf()))?;
    crate::fault::point("write: temporary file written");
    tmp.as_file()
        .sync_all()
        .map_err(Error::io("cannot sync", path))?;
    tmp.persist(path)
        .map_err(|e| Error::io("cannot replace", path)(e.error))?;
    crate::fault::point("write: renamed into place");
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

impl Workspace {
    /// Open the repository around the working directory and resolve the goal paths.
    pub fn open(ctx: &Ctx) -> Result<Workspace> {
        Workspace::open_repo(ctx, Repo::discover(&ctx.cwd)?)
    }

    /// The workspace of a command that only reads history (`goal log`, `report`, `audit`
    /// without `--rerun`): a bare repository is one too.
    pub fn open_history(ctx: &Ctx) -> Result<Workspace> {
        Workspace::open_repo(ctx, Repo::discover_history(&ctx.cwd)?)
    }

    fn open_repo(ctx: &Ctx, repo: Repo) -> Result<Workspace> {
        let config = Config::load(&repo)?;
        let root = repo.root().to_path_buf();
        let goal_rel = match &ctx.file {
            None => PathBuf::from(DEFAULT_GOAL_DIR).join("GOAL.md"),
            Some(file) => {
                let absolute = if file.is_absolute() {
                    file.clone()
                } else {
                    ctx.cwd.join(file)
                };
                let absolute = normalize(&absolute);
                let root_real = normalize(&root);
                match absolute.strip_prefix(&root_real) {
                    Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
                    _ => {
                        return Err(Error::usage(
                            format!(
                                "--file {} is outside the worktree {}",
                                file.display(),
                                root.display()
                            ),
                            "give a path inside the worktree, e.g. `--file .agents/goal/GOAL.md`",
                        ));
                    }
                }
            }
        };
        let goal_dir = goal_rel.parent().map(Path::to_path_buf).unwrap_or_default();
        if goal_dir.as_os_str().is_empty() {
            return Err(Error::usage(
                "the goal file must live in a folder of its own (its folder holds evidence.jsonl and retry.json)",
                "use the default `.agents/goal/GOAL.md`",
            ));
        }
        let here = {
            let real = ctx.cwd.canonicalize().unwrap_or_else(|_| ctx.cwd.clone());
            let root_real = root.canonicalize().unwrap_or_else(|_| root.clone());
            real.strip_prefix(&root_real)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let ws = Workspace {
            repo,
            config,
            goal_dir,
            goal_rel,
            no_verify: false,
            here,
        };
        // retry.json is not checked here: a bad one is warned about and replaced (SPEC §7).
        // A bare repository has no working files to check.
        for path in [ws.goal_dir.clone(), ws.goal_rel.clone(), ws.evidence_rel()] {
            if !ws.repo.is_bare() {
                ws.check_inside(&path)?;
            }
        }
        Ok(ws)
    }

    /// This workspace with the committing flags a command was given.
    pub fn with(mut self, flags: &crate::commands::CommitFlags) -> Workspace {
        self.no_verify = flags.no_verify;
        self
    }

    pub fn root(&self) -> &Path {
        self.repo.root()
    }

    pub fn goal_path(&self) -> PathBuf {
        self.root().join(&self.goal_rel)
    }

    pub fn evidence_rel(&self) -> PathBuf {
        self.goal_dir.join("evidence.jsonl")
    }

    pub fn retry_rel(&self) -> PathBuf {
        self.goal_dir.join("retry.json")
    }

    pub fn abs(&self, rel: &Path) -> PathBuf {
        self.root().join(rel)
    }

    /// Refuse a goal path that resolves (through a symlink) outside the worktree.
    pub fn check_inside(&self, rel: &Path) -> Result<()> {
        let path = self.abs(rel);
        let mut probe = path.clone();
        // The nearest part of the path that exists decides where it resolves.
        while std::fs::symlink_metadata(&probe).is_err() {
            if !probe.pop() {
                return Ok(());
            }
        }
        let target = probe
            .canonicalize()
            .map_err(Error::io("cannot resolve", &probe))?;
        if !target.starts_with(self.root()) || target.starts_with(self.repo.git_dir()) {
            return Err(Error::OutsideWorktree {
                path: probe,
                target,
            });
        }
        Ok(())
    }

    /// The witness file: every record hash `goal verify` wrote in this repository (shared by its
    /// worktrees).
    pub fn witness_path(&self) -> PathBuf {
        self.repo.common_dir().join("goal-witness")
    }

    /// Add a record to the witness (its hash, and what is needed to judge it should its line
    /// later disappear from evidence.jsonl).
    pub fn witness(&self, record: &crate::evidence::Record) -> Result<()> {
        let path = self.witness_path();
        let line = serde_json::to_string(&crate::evidence::WitnessEntry::of(record))
            .map_err(|e| Error::usage(e.to_string(), ""))?;
        let mut file = File::options()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(Error::io("cannot open", &path))?;
        file.write_all(format!("{line}\n").as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(Error::io("cannot write", &path))
    }

    /// The evidence ledger of the working tree (empty when there is no evidence.jsonl).
    pub fn ledger(&self) -> Result<crate::evidence::Ledger> {
        Ok(self
            .unwitnessed_ledger()?
            .with_witness(read_witness(&self.witness_path()))
            .with_removed_tail(&read_witness_entries(&self.witness_path())))
    }

    /// Every criterion of `goal` judged on the working tree as it is now (the tree is hashed
    /// only when there is evidence to judge).
    pub fn proof(&self, goal: &GoalFile) -> Result<crate::proof::Proof> {
        let ledger = self.ledger()?;
        self.proof_with(goal, &ledger)
    }

    pub fn proof_with(
        &self,
        goal: &GoalFile,
        ledger: &crate::evidence::Ledger,
    ) -> Result<crate::proof::Proof> {
        let tree = if ledger.records.is_empty() {
            None
        } else {
            Some(self.worktree_tree()?.to_string())
        };
        Ok(crate::proof::judge(goal, ledger, tree.as_deref()).seen_from(&self.here))
    }

    fn unwitnessed_ledger(&self) -> Result<crate::evidence::Ledger> {
        let rel = self.evidence_rel();
        match std::fs::read(self.abs(&rel)) {
            Ok(bytes) => {
                crate::evidence::Ledger::parse(&bytes).map_err(|(line, message)| Error::Parse {
                    path: rel,
                    line,
                    message,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(crate::evidence::Ledger::default())
            }
            Err(e) => Err(Error::io("cannot read", rel)(e)),
        }
    }

    /// The retry state; a malformed (or misplaced) retry.json gives one warning and a fresh state.
    pub fn retry_state(&self) -> crate::retry::State {
        let rel = self.retry_rel();
        if let Err(e) = self.check_inside(&rel) {
            eprintln!(
                "goal: warning: ignoring {}: {e}; starting a fresh retry state",
                rel.display()
            );
            return crate::retry::State::default();
        }
        match std::fs::read_to_string(self.abs(&rel)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => crate::retry::State::default(),
            Err(e) => {
                eprintln!(
                    "goal: warning: cannot read {}: {e}; starting a fresh retry state",
                    rel.display()
                );
                crate::retry::State::default()
            }
            Ok(text) => crate::retry::State::parse(&text).unwrap_or_else(|e| {
                eprintln!(
                    "goal: warning: {} is malformed ({e}); starting a fresh retry state",
                    rel.display()
                );
                crate::retry::State::default()
            }),
        }
    }

    /// Read GOAL.md; `None` when there is no goal.
    pub fn read_goal(&self) -> Result<Option<GoalFile>> {
        let path = self.goal_path();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("cannot read", path)(e)),
        };
        GoalFile::parse_vec(bytes)
            .map(Some)
            .map_err(|e| Error::Parse {
                path: self.goal_rel.clone(),
                line: e.line,
                message: e.message,
            })
    }

    /// Read GOAL.md, or fail with "no active goal".
    pub fn goal(&self) -> Result<GoalFile> {
        self.read_goal()?.ok_or_else(|| Error::NoGoal {
            path: self.goal_rel.clone(),
        })
    }

    /// Read GOAL.md for a view (`status`, the agent's context): the Progress Log entries older
    /// than the iterations stagnation looks at are left out, so that a long log costs nothing.
    /// Never written back.
    pub fn goal_for_view(&self) -> Result<GoalFile> {
        self.read_goal_for_view()?.ok_or_else(|| Error::NoGoal {
            path: self.goal_rel.clone(),
        })
    }

    /// [`Workspace::goal_for_view`]; `None` when there is no goal.
    pub fn read_goal_for_view(&self) -> Result<Option<GoalFile>> {
        let window = crate::history::log_window(&self.config);
        match crate::goal_file::lean::read(&self.goal_path(), window) {
            Ok(Lean::Read(goal)) => Ok(Some(*goal)),
            Ok(Lean::Missing) => Ok(None),
            // Whatever is odd about the file, the whole read says it as every command does.
            Ok(Lean::Whole) | Err(_) => self.read_goal(),
        }
    }

    pub fn write_goal(&self, goal: &GoalFile) -> Result<()> {
        if goal.partial {
            return Err(Error::InvalidInput {
                message: "internal error: a GOAL.md read for a view was about to be written back"
                    .into(),
            });
        }
        write_atomic(&self.goal_path(), goal.render().as_bytes())
    }

    /// Take this worktree's goal lock, waiting up to `goal.lockTimeout` ms for another command.
    pub fn lock(&self) -> Result<Lock> {
        let path = self.repo.git_dir().join("goal.lock");
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(Error::io("cannot open the lock file", &path))?;
        let started = Instant::now();
        let timeout = Duration::from_millis(self.config.lock_timeout_ms);
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(Error::Locked {
                        path,
                        waited_ms: started.elapsed().as_millis() as u64,
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Error::io("cannot lock", path)(e));
                }
            }
        }
        let lock = Lock { _file: file };
        self.recover()?;
        Ok(lock)
    }

    fn journal_path(&self) -> PathBuf {
        self.repo.git_dir().join("goal-journal.json")
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
            eprintln!(
                "goal: warning: dropped an unreadable journal {} left by a killed goal process",
                path.display()
            );
            return remove();
        };
        if let Some(head) = self.repo.head_id()?
            && self.repo.commit_info(head)?.message == journal.message
        {
            return remove();
        }
        let subject = journal.message.lines().next().unwrap_or("").to_string();
        eprintln!("goal: finishing `{subject}`, interrupted by a killed goal process");
        // The user's hooks passed this commit before its journal was written: it is only made.
        let finished = self
            .write_files(journal.goal.as_deref(), &journal.other)
            .and_then(|()| {
                let staging = self.stage(&journal, None)?;
                self.repo.finish_commit(&staging, &journal.message)
            });
        if let Err(e) = finished {
            eprintln!(
                "goal: warning: could not finish `{subject}` ({e}); the goal files are left as they are"
            );
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
                eprintln!(
                    "goal: removed {}, left by a killed goal process",
                    lock.display()
                );
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
        if let Err(e) = gate::check_commit(self, &staging, &pending.message) {
            self.repo.discard(&staging);
            return Err(e);
        }
        Ok(staging)
    }

    /// Write the goal files (GOAL.md as `goal`, deleted when None; plus `other` files) and commit
    /// them with `message`. Journaled: a crash at any point is finished or undone by the next
    /// command.
    pub fn commit(
        &self,
        goal: Option<&GoalFile>,
        staged_goal: Option<&GoalFile>,
        other: &[(PathBuf, Option<Vec<u8>>)],
        message: &str,
        stage: Stage,
    ) -> Result<Oid> {
        let pending = Pending::new(goal, staged_goal, other, message, stage);
        let mut made = self.commit_all(vec![pending])?;
        made.pop()
            .ok_or_else(|| Error::usage("no commit was made", "run the goal command again"))
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
            eprintln!("goal: warning: {DETACHED_WARNING}");
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
            gate::check_commit(self, staging, &pending.message)?;
        }
        Ok(())
    }

    /// Journal, write the goal files, commit; on failure put the files back as they were.
    fn commit_journaled(&self, pending: &Pending, staging: &Staging) -> Result<Oid> {
        let journal_path = self.journal_path();
        let journal_bytes =
            serde_json::to_vec(pending).map_err(|e| Error::usage(e.to_string(), ""))?;
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

    /// The tree id of the working tree outside the goal folder (untracked, not ignored, included).
    pub fn worktree_tree(&self) -> Result<Oid> {
        let tree = self.worktree_tree_full()?;
        self.repo.tree_without(tree, &self.goal_dir)
    }

    /// The working tree's tree id with the goal folder in it as the index has it (diffs need
    /// real trees, and leave the goal folder out by path), in the object database.
    pub fn worktree_tree_full(&self) -> Result<Oid> {
        self.repo.worktree_tree(&self.goal_dir)
    }
}

/// The record hashes in a witness file (none when it does not exist). A line is a JSON entry,
/// or a bare hash (written by earlier versions).
pub fn read_witness(path: &Path) -> std::collections::HashSet<String> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    if l.starts_with('{') {
                        serde_json::from_str::<crate::evidence::WitnessEntry>(l)
                            .map(|e| e.hash)
                            .unwrap_or_default()
                    } else {
                        l.to_string()
                    }
                })
                .filter(|h| !h.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The witness's full entries, in the order they were written (bare-hash lines are skipped).
pub fn read_witness_entries(path: &Path) -> Vec<crate::evidence::WitnessEntry> {
    std::fs::read_to_string(path)
        .map(|text| {
            text.lines()
                .filter(|l| l.trim_start().starts_with('{'))
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Remove `.` and `..` without touching the file system (for paths that may not exist yet).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    // Resolve the existing prefix, so /tmp and /private/tmp style links compare equal.
    let mut existing = out.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match existing.file_name() {
            Some(name) => {
                rest.push(name.to_os_string());
                existing.pop();
            }
            None => break,
        }
    }
    let mut resolved = existing.canonicalize().unwrap_or(existing);
    for name in rest.iter().rev() {
        resolved.push(name);
    }
    resolved
}
