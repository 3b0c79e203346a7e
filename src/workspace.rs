//! The goal's home in one worktree: its paths, the lock, atomic writes, and loading GOAL.md, the
//! ledger and the retry state. Committing is the door's (`door.rs`).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::repo::Oid;

use crate::config::Config;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::goal_file::lean::Lean;
use crate::repo::Repo;
use crate::store::{read_witness, read_witness_entries};

pub const DEFAULT_GOAL_DIR: &str = ".agents/goal";

/// What a commit on a detached HEAD is told (status says it too).
pub const DETACHED_WARNING: &str =
    "HEAD is detached: these commits are on no branch — git switch -c <name> keeps them";

/// How much of GOAL.md a read takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// All of it: what a command that writes it back reads.
    Whole,
    /// The recent Progress Log only, for a view; never written back.
    View,
}

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
            None => PathBuf::from(DEFAULT_GOAL_DIR).join(crate::store::GOAL_FILE),
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
        // A pin's run takes its bounds from GOAL.md as it is when the run starts.
        let (pins, goal_file) = (config.clone(), root.join(&goal_rel));
        crate::child::bound_pins_by(move || {
            let settings = std::fs::read_to_string(&goal_file)
                .ok()
                .and_then(|text| GoalFile::parse(&text).ok())
                .map(|g| g.settings);
            Ok(pins.pin_bounds(settings.as_ref()))
        });
        let ws = Workspace {
            repo,
            config,
            goal_dir,
            goal_rel,
            no_verify: false,
            here,
        };
        // retry.json is not checked here: a bad one is warned about and replaced.
        // A bare repository has no working files to check.
        for path in [ws.goal_dir.clone(), ws.goal_rel.clone(), ws.evidence_rel()] {
            if !ws.repo.is_bare() {
                ws.check_inside(&path)?;
            }
        }
        Ok(ws)
    }

    /// This workspace with the user's git hooks skipped (`--no-verify`) or not.
    pub fn with_no_verify(mut self, no_verify: bool) -> Workspace {
        self.no_verify = no_verify;
        self
    }

    pub fn root(&self) -> &Path {
        self.repo.root()
    }

    pub fn goal_path(&self) -> PathBuf {
        self.root().join(&self.goal_rel)
    }

    pub fn evidence_rel(&self) -> PathBuf {
        self.goal_dir.join(crate::store::EVIDENCE_FILE)
    }

    pub fn retry_rel(&self) -> PathBuf {
        self.goal_dir.join(crate::store::RETRY_FILE)
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
        crate::store::witness_path(&self.repo)
    }

    /// Add a record to the witness (its hash, and what is needed to judge it should its line
    /// later disappear from evidence.jsonl).
    pub fn witness(&self, record: &crate::evidence::Record) -> Result<()> {
        let path = self.witness_path();
        let line = serde_json::to_string(&crate::evidence::WitnessEntry::of(record))
            .map_err(|e| Error::internal("write the witness entry", e))?;
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
        let rel = self.evidence_rel();
        let bytes = match std::fs::read(self.abs(&rel)) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io("cannot read", rel)(e)),
        };
        let witness = self.witness_path();
        Ok(
            crate::store::ledger(bytes.as_deref(), &rel, Some(read_witness(&witness)))?
                .with_removed_tail(&read_witness_entries(&witness)),
        )
    }

    /// Every criterion of `goal` judged on the working tree as it is now, without red states
    /// (the tree is hashed only when there is evidence to judge); `ops::proof` adds them.
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

    /// The retry state; a malformed (or misplaced) retry.json gives one warning and a fresh state.
    pub fn retry_state(&self) -> crate::retry::RetryState {
        let rel = self.retry_rel();
        if let Err(e) = self.check_inside(&rel) {
            crate::context::warn_line(format!(
                "goal: warning: ignoring {}: {e}; starting a fresh retry state",
                rel.display()
            ));
            return crate::retry::RetryState::default();
        }
        match std::fs::read_to_string(self.abs(&rel)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                crate::retry::RetryState::default()
            }
            Err(e) => {
                crate::context::warn_line(format!(
                    "goal: warning: cannot read {}: {e}; starting a fresh retry state",
                    rel.display()
                ));
                crate::retry::RetryState::default()
            }
            Ok(text) => crate::retry::RetryState::parse(&text).unwrap_or_else(|e| {
                crate::context::warn_line(format!(
                    "goal: warning: {} is malformed ({e}); starting a fresh retry state",
                    rel.display()
                ));
                crate::retry::RetryState::default()
            }),
        }
    }

    /// Read GOAL.md, whole or for a view; `None` when there is no goal. A view (`status`, the
    /// agent's context) leaves out the Progress Log entries older than the iterations
    /// stagnation looks at, so that a long log costs nothing; it is never written back.
    pub fn read_goal(&self, part: Part) -> Result<Option<GoalFile>> {
        if part == Part::View {
            let window = self.config.log_window();
            let read = std::fs::File::open(self.goal_path())
                .and_then(|file| crate::goal_file::lean::read(file, window));
            match read {
                Ok(Lean::Read(goal)) => return Ok(Some(*goal)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                // Whatever is odd about the file, the whole read says it as every command does.
                Ok(Lean::Whole) | Err(_) => {}
            }
        }
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

    /// Read GOAL.md whole, or fail with "no active goal".
    pub fn goal(&self) -> Result<GoalFile> {
        self.read_goal(Part::Whole)?.ok_or_else(|| self.no_goal())
    }

    /// The error of a command that needs a goal and finds none.
    pub fn no_goal(&self) -> Error {
        Error::NoGoal {
            path: self.goal_rel.clone(),
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

    /// Take this worktree's goal lock, waiting up to `goal.lockTimeout` ms for another command
    /// (the commit door's `lock` also finishes what a killed command left).
    pub(crate) fn take_lock(&self) -> Result<Lock> {
        let path = self.repo.git_dir().join(crate::store::LOCK_FILE);
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
        Ok(Lock { _file: file })
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
