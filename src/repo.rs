//! The only user of git2: open the repository, snapshot trees, commit with trailers, walk history.
//!
//! Everything else speaks of goals, trees (as hex ids) and commits (as `CommitInfo`). This file
//! opens the repository and reads its state; `snapshot` makes trees, `commit` stages and commits,
//! `diff` walks history and compares trees, `message` parses trailers and dates, `scan` walks the
//! working tree.

use std::path::{Component, Path, PathBuf};

use git2::{Repository, RepositoryState, Signature, Time};

/// An object id (commit, tree, blob). The one git2 type the rest of the crate sees.
pub use git2::Oid;

/// One value of a git config key and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConfigEntry {
    pub value: String,
    pub scope: &'static str,
    pub origin: Option<PathBuf>,
}

/// How many hex digits of a commit id people read, everywhere goal prints one.
pub const SHORT_ID: usize = 10;

/// The short form of a commit id (hex) for people: its first [`SHORT_ID`] digits.
pub fn short_id(id: &str) -> &str {
    id.get(..SHORT_ID).unwrap_or(id)
}

use crate::error::{Error, Result};

mod commit;
pub mod git_cli;
pub use commit::{EVIDENCE_FILE, RETRY_FILE};
mod diff;
mod message;
mod objects;
mod remote;
pub use remote::{Pushed, remote_refs_at};
mod scan;
mod snapshot;
mod temp_worktree;
pub mod worktree;

use message::parse_git_date;
pub use message::parse_trailers;
pub use objects::{TreeChange, TreeFile};
use snapshot::TreeItems;
pub use temp_worktree::{
    KeptWorktree, TempWorktree, base_witness, hook_record, is_kept_path, short_sha256,
};

/// An open, non-bare repository with a working tree.
pub struct Repo {
    inner: Repository,
    root: PathBuf,
    /// The index file: the repository's, or GIT_INDEX_FILE's in a hook.
    index_file: PathBuf,
    /// The entries of the trees the last diffs read: a history walk diffs each commit's trees
    /// against the next one's, so each is read once instead of twice (libgit2's cache is off).
    recent_trees: std::cell::RefCell<std::collections::VecDeque<(Oid, std::rc::Rc<TreeItems>)>>,
}

/// What a commit stages before it is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Only the goal folder (as `git add -A -- <goal dir>`).
    GoalOnly,
    /// The whole working tree (as `git add -A`, honouring .gitignore).
    All,
}

/// The tree of a commit about to be made, staged but not yet committed.
pub struct Staging {
    /// The tree that will be committed.
    pub tree: Oid,
    /// The parent's tree (HEAD's, or the tree of the commit this one follows), if any.
    pub parent_tree: Option<Oid>,
    /// Staged in the repository's index in memory (`Stage::All`), written when committed.
    in_index: bool,
    /// The tree before a pre-commit hook changed it, when one did.
    hook_tree: Option<Oid>,
}

/// A commit as history readers need it.
#[derive(Debug, Clone)]
pub struct CommitInfo {
    pub id: Oid,
    pub tree: Oid,
    pub time: i64,
    pub message: String,
    pub trailers: Vec<(String, String)>,
}

impl CommitInfo {
    pub fn trailer(&self, key: &str) -> Option<&str> {
        self.trailers
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    pub fn subject(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// Line counts of a diff, like `git diff --numstat` summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DiffStat {
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
}

impl Repo {
    fn new(inner: Repository, root: PathBuf) -> Repo {
        Repo {
            index_file: inner.path().join("index"),
            inner,
            root,
            recent_trees: Default::default(),
        }
    }

    /// Find the repository containing `dir` (like git does) and refuse a bare one.
    pub fn discover(dir: &Path) -> Result<Repo> {
        tune();
        let inner = Repository::discover(dir).map_err(|source| Error::NotARepo {
            dir: dir.to_path_buf(),
            source,
        })?;
        if inner.is_bare() {
            return Err(Error::BareRepo {
                dir: inner.path().to_path_buf(),
            });
        }
        let Some(workdir) = inner.workdir() else {
            return Err(Error::BareRepo {
                dir: inner.path().to_path_buf(),
            });
        };
        let root = workdir
            .canonicalize()
            .map_err(Error::io("cannot resolve", workdir))?;
        Ok(Repo::new(inner, root))
    }

    /// Open the repository at or above `dir` to read its history only (`goal log`, `report`,
    /// `audit`): a bare repository (a mirror, a server-side hook) is fine too, its git dir standing
    /// in for the worktree root, which nothing then reads.
    pub fn discover_history(dir: &Path) -> Result<Repo> {
        tune();
        let inner = Repository::discover(dir).map_err(|source| Error::NotARepo {
            dir: dir.to_path_buf(),
            source,
        })?;
        let top = inner.workdir().unwrap_or_else(|| inner.path());
        let root = top
            .canonicalize()
            .map_err(Error::io("cannot resolve", top))?;
        Ok(Repo::new(inner, root))
    }

    /// A bare repository: history only, no working tree.
    pub fn is_bare(&self) -> bool {
        self.inner.is_bare()
    }

    /// Open the repository a git hook runs in: honours GIT_DIR and GIT_INDEX_FILE (git sets a
    /// temporary index for `git commit -a` and `git commit <paths>`).
    pub fn for_hook(dir: &Path) -> Result<Repo> {
        tune();
        let mut repo = if std::env::var_os("GIT_DIR").is_some() {
            let inner = Repository::open_from_env().map_err(|source| Error::NotARepo {
                dir: dir.to_path_buf(),
                source,
            })?;
            let Some(workdir) = inner.workdir() else {
                return Err(Error::BareRepo {
                    dir: inner.path().to_path_buf(),
                });
            };
            let root = workdir
                .canonicalize()
                .map_err(Error::io("cannot resolve", workdir))?;
            Repo::new(inner, root)
        } else {
            Repo::discover(dir)?
        };
        if let Some(file) = std::env::var_os("GIT_INDEX_FILE") {
            let file = PathBuf::from(file);
            let file = if file.is_absolute() {
                file
            } else {
                dir.join(file)
            };
            let mut index = git2::Index::open(&file).map_err(Error::git("read GIT_INDEX_FILE"))?;
            repo.inner
                .set_index(&mut index)
                .map_err(Error::git("use GIT_INDEX_FILE"))?;
            repo.index_file = file;
        }
        Ok(repo)
    }

    /// The lock files a commit on HEAD takes: the index's, HEAD's, and the branch's.
    pub fn lock_files(&self) -> Vec<PathBuf> {
        let mut locks = vec![
            self.inner.path().join("index.lock"),
            self.inner.path().join("HEAD.lock"),
        ];
        if let Ok(head) = self.inner.find_reference("HEAD")
            && let Ok(Some(target)) = head.symbolic_target()
        {
            locks.push(self.inner.commondir().join(format!("{target}.lock")));
        }
        locks
    }

    /// The git dir shared by all worktrees (where hooks/ lives by default).
    pub fn common_dir(&self) -> &Path {
        self.inner.commondir()
    }

    /// Whether the index differs from HEAD under `dir`.
    pub fn index_touches(&self, dir: &Path) -> Result<bool> {
        let index = self.inner.index().map_err(Error::git("read the index"))?;
        let head = self.head_commit()?;
        let tree = head
            .as_ref()
            .map(|c| c.tree())
            .transpose()
            .map_err(Error::git("read HEAD"))?;
        let mut options = git2::DiffOptions::new();
        options.pathspec(dir);
        let diff = self
            .inner
            .diff_tree_to_index(tree.as_ref(), Some(&index), Some(&mut options))
            .map_err(Error::git("diff HEAD and the index"))?;
        Ok(diff.deltas().len() > 0)
    }

    /// The worktree root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// This worktree's own git dir (`.git`, or `.git/worktrees/<name>` for a linked worktree).
    pub fn git_dir(&self) -> &Path {
        self.inner.path()
    }

    /// Refuse to work in the middle of a merge, rebase, cherry-pick, revert, bisect or am.
    pub fn ensure_idle(&self) -> Result<()> {
        let (operation, hint) = match self.inner.state() {
            RepositoryState::Clean => return Ok(()),
            RepositoryState::Merge => (
                "merge",
                "finish it with `git commit`, or abort it with `git merge --abort`",
            ),
            RepositoryState::Revert | RepositoryState::RevertSequence => (
                "revert",
                "finish it with `git revert --continue`, or abort it with `git revert --abort`",
            ),
            RepositoryState::CherryPick | RepositoryState::CherryPickSequence => (
                "cherry-pick",
                "finish it with `git cherry-pick --continue`, or abort it with `git cherry-pick --abort`",
            ),
            RepositoryState::Bisect => ("bisect", "end it with `git bisect reset`"),
            RepositoryState::Rebase
            | RepositoryState::RebaseInteractive
            | RepositoryState::RebaseMerge => (
                "rebase",
                "finish it with `git rebase --continue`, or abort it with `git rebase --abort`",
            ),
            RepositoryState::ApplyMailbox | RepositoryState::ApplyMailboxOrRebase => (
                "git am",
                "finish it with `git am --continue`, or abort it with `git am --abort`",
            ),
        };
        Err(Error::RepoBusy {
            operation: operation.into(),
            hint: format!("{hint}, then run the goal command again"),
        })
    }

    /// A string-valued git config entry.
    pub fn config_string(&self, key: &str) -> Option<String> {
        self.inner.config().ok()?.get_string(key).ok()
    }

    /// Set `key` to `value` in the repository's own config (`.git/config`, shared by its
    /// worktrees).
    pub fn set_local_config(&self, key: &str, value: &str) -> Result<()> {
        let what = "write the repository's config";
        let config = self.inner.config().map_err(Error::git(what))?;
        let mut local = config
            .open_level(git2::ConfigLevel::Local)
            .map_err(Error::git(what))?;
        local.set_str(key, value).map_err(Error::git(what))
    }

    /// Whether the index tracks a file inside folder `dir` (a hooks folder kept in the
    /// repository, husky style). A folder outside the worktree is never tracked.
    pub fn tracks_files_in(&self, dir: &Path) -> bool {
        let (Ok(root), Ok(dir)) = (self.root.canonicalize(), dir.canonicalize()) else {
            return false;
        };
        let Ok(rel) = dir.strip_prefix(&root) else {
            return false;
        };
        let mut prefix = rel.to_string_lossy().into_owned().into_bytes();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        let Ok(index) = self.inner.index() else {
            return false;
        };
        index.iter().any(|e| e.path.starts_with(&prefix))
    }

    /// Every value git config holds for `key`, each with its scope (`local`, `global`,
    /// `system`, `worktree`, …) and the file it comes from where git can say, as
    /// `git config --show-origin --show-scope` would list them.
    pub fn config_entries(&self, key: &str) -> Vec<ConfigEntry> {
        let Ok(config) = self.inner.config() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        if let Ok(mut entries) = config.multivar(key, None) {
            while let Some(Ok(entry)) = entries.next() {
                let Ok(value) = entry.value() else { continue };
                let (scope, origin) = match entry.level() {
                    git2::ConfigLevel::Local => ("local", Some(self.common_dir().join("config"))),
                    git2::ConfigLevel::Worktree => {
                        ("worktree", Some(self.git_dir().join("config.worktree")))
                    }
                    git2::ConfigLevel::Global => ("global", git2::Config::find_global().ok()),
                    git2::ConfigLevel::XDG => ("global", git2::Config::find_xdg().ok()),
                    git2::ConfigLevel::System => ("system", git2::Config::find_system().ok()),
                    git2::ConfigLevel::ProgramData => ("system", None),
                    _ => ("command", None),
                };
                found.push(ConfigEntry {
                    value: value.to_string(),
                    scope,
                    origin,
                });
            }
        }
        found
    }

    /// Every value of a multi-valued git config key, in order.
    pub fn config_multi(&self, key: &str) -> Vec<String> {
        let Ok(config) = self.inner.config() else {
            return Vec::new();
        };
        let mut values = Vec::new();
        if let Ok(mut entries) = config.multivar(key, None) {
            while let Some(Ok(entry)) = entries.next() {
                if let Ok(v) = entry.value() {
                    values.push(v.to_string());
                }
            }
        }
        values
    }

    fn identity(&self, who: &str) -> Result<Signature<'static>> {
        let config = self.inner.config().map_err(Error::git("read git config"))?;
        let env = |key: &str| {
            std::env::var(format!("GIT_{who}_{key}"))
                .ok()
                .filter(|v| !v.is_empty())
        };
        let name = env("NAME").or_else(|| config.get_string("user.name").ok());
        let email = env("EMAIL").or_else(|| config.get_string("user.email").ok());
        let (Some(name), Some(email)) = (name, email) else {
            return Err(Error::Identity {
                source: git2::Error::from_str(&format!(
                    "{} identity unknown: user.name and user.email are not set",
                    who.to_ascii_lowercase()
                )),
            });
        };
        let time = env("DATE").and_then(|d| parse_git_date(&d));
        let signature = match time {
            Some(time) => Signature::new(&name, &email, &time),
            None => Signature::now(&name, &email),
        };
        signature.map_err(|source| Error::Identity { source })
    }

    fn head_commit(&self) -> Result<Option<git2::Commit<'_>>> {
        match self.inner.head() {
            Ok(head) => Ok(Some(
                head.peel_to_commit().map_err(Error::git("read HEAD"))?,
            )),
            Err(e)
                if matches!(
                    e.code(),
                    git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(Error::git("read HEAD")(e)),
        }
    }

    /// HEAD's commit id, if the branch is born.
    /// HEAD names a commit, not a branch: commits made now are on no branch.
    pub fn head_detached(&self) -> bool {
        self.inner.head_detached().unwrap_or(false)
    }

    pub fn head_id(&self) -> Result<Option<Oid>> {
        Ok(self.head_commit()?.map(|c| c.id()))
    }

    pub fn head_tree(&self) -> Result<Option<Oid>> {
        Ok(self.head_commit()?.map(|c| c.tree_id()))
    }

    /// Where git looks for hooks: `core.hooksPath` (relative to the worktree root, as git runs
    /// hooks there), else the common git dir's `hooks/`, so linked worktrees share them.
    pub fn hooks_dir(&self) -> PathBuf {
        match self.config_string("core.hooksPath") {
            Some(p) if !p.trim().is_empty() => {
                let p = p.trim();
                let p = match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
                    (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
                    _ => PathBuf::from(p),
                };
                if p.is_absolute() {
                    p
                } else {
                    self.root.join(p)
                }
            }
            _ => self.common_dir().join("hooks"),
        }
    }

    /// A libgit2 error, with a lock conflict turned into the lock file's path.
    fn locked(&self, e: git2::Error, what: &str) -> Error {
        if e.code() == git2::ErrorCode::Locked && !e.message().contains('\'') {
            let name = if e.message().contains("index") {
                "index.lock"
            } else {
                "HEAD.lock"
            };
            return Error::GitLock {
                path: self.inner.path().join(name),
            };
        }
        Error::git(what)(e)
    }
}

/// libgit2 re-hashes every object it reads unless told not to; git itself does not, and `goal log`
/// reads thousands of objects.
fn tune() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        git2::opts::strict_hash_verification(false);
        // No object cache: history is read once, front to back, and a full cache spends more
        // evicting (its cost grew with history: a third of `goal log` at 10,000 commits) than
        // it saves in re-reading the few objects read twice.
        git2::opts::enable_caching(false);
        // SAFETY: libgit2's global options are set once, before any repository is opened and
        // before any other thread exists.
        #[allow(unsafe_code)]
        unsafe {
            // Map packs in small windows, and few of them: a long history must not be mapped
            // whole (`goal log` streams; its memory bar is 64 MiB).
            let _ = git2::opts::set_mwindow_size(2 * 1024 * 1024);
            let _ = git2::opts::set_mwindow_mapped_limit(8 * 1024 * 1024);
            let _ = git2::opts::set_cache_max_size(4 * 1024 * 1024);
        }
    });
}

fn empty_tree_id() -> Oid {
    Oid::hash_object(git2::ObjectType::Tree, b"").unwrap_or(Oid::ZERO_SHA1)
}
