//! The only user of git2: open the repository, snapshot trees, commit with trailers, walk history.
//!
//! Everything else speaks of goals, trees (as hex ids) and commits (as `CommitInfo`).

use std::path::{Component, Path, PathBuf};

use git2::{Repository, RepositoryState, Signature, Time};

/// An object id (commit, tree, blob). The one git2 type the rest of the crate sees.
pub use git2::Oid;

use crate::error::{Error, Result};

mod objects;
mod scan;

pub use objects::{TreeChange, TreeFile};

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

    /// The entries of tree `id`, sorted by name, from the recent ones when it is one of them.
    fn tree_items(&self, id: Oid) -> std::result::Result<std::rc::Rc<TreeItems>, git2::Error> {
        const KEEP: usize = 64;
        if let Some((_, items)) = self
            .recent_trees
            .borrow()
            .iter()
            .rev()
            .find(|(t, _)| *t == id)
        {
            return Ok(items.clone());
        }
        let items = std::rc::Rc::new(TreeItems::read(&self.inner, id)?);
        let mut recent = self.recent_trees.borrow_mut();
        if recent.len() == KEEP {
            recent.pop_front();
        }
        recent.push_back((id, items.clone()));
        Ok(items)
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

    /// The bytes of `path` (relative to the root) in `tree`, if it is a file there.
    pub fn file_in_tree(&self, tree: Oid, path: &Path) -> Result<Option<Vec<u8>>> {
        let Some(id) = self.blob_id(tree, path)? else {
            return Ok(None);
        };
        match self.inner.find_blob(id) {
            Ok(blob) => Ok(Some(blob.content().to_vec())),
            Err(e) => Err(Error::git("read a file")(e)),
        }
    }

    /// The blob id of `path` in `tree`, if it is a file there (cheap: no content is read).
    pub fn blob_id(&self, tree: Oid, path: &Path) -> Result<Option<Oid>> {
        let mut id = tree;
        let mut parts = path
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.as_encoded_bytes()),
                _ => None,
            })
            .peekable();
        while let Some(name) = parts.next() {
            let items = self.tree_items(id).map_err(Error::git("read tree"))?;
            let Some(item) = items.find(name) else {
                return Ok(None);
            };
            let last = parts.peek().is_none();
            match (last, item.is_tree) {
                (false, true) => id = item.id,
                // A submodule (a commit) is not a file.
                (true, false) if item.mode != MODE_GITLINK => return Ok(Some(item.id)),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The tree of the index as it is staged now.
    pub fn index_tree(&self) -> Result<Oid> {
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        index
            .write_tree()
            .map_err(Error::git("write the staged tree"))
    }

    /// The tree the working tree would have if everything were staged (`git add -A`), without
    /// touching the real index, except that the folder `keep` (the goal folder, which the
    /// callers leave out) is as the index has it: its files change on every `goal` command, and
    /// a tree that differs from the index's only there is the index's own, known without
    /// writing a tree.
    pub fn worktree_tree(&self, keep: &Path) -> Result<Oid> {
        let scan = self
            .scan(Some(keep))
            .map_err(Error::git("snapshot the working tree"))?;
        if let Some(tree) = scan.unchanged_tree() {
            return Ok(tree);
        }
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        let result = index
            .read(false)
            .and_then(|()| scan.stage(&self.root, &mut index))
            .and_then(|undo| Ok((index.write_tree()?, undo)));
        // Put the in-memory index back: the index on disk is not ours to change here.
        match result {
            Ok((tree, undo)) => {
                if undo.apply(&mut index).is_err() {
                    index.read(true).map_err(Error::git("reload the index"))?;
                }
                Ok(tree)
            }
            Err(e) => {
                index.read(true).map_err(Error::git("reload the index"))?;
                Err(Error::git("snapshot the working tree")(e))
            }
        }
    }

    /// How the working tree differs from the index, as `git add -A` would see it, trusting the
    /// stat data of unchanged files as git does.
    fn scan(&self, keep: Option<&Path>) -> std::result::Result<scan::Scan, git2::Error> {
        scan::scan(&self.inner, &self.root, &self.index_file, keep)
    }

    /// The id `tree` would have without the subtree at `exclude` (e.g. `.agents/goal`). The id is
    /// computed, not written: no object is added to the repository.
    pub fn tree_without(&self, tree: Oid, exclude: &Path) -> Result<Oid> {
        let parts: Vec<String> = exclude
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        self.tree_without_parts(tree, &parts)
            .map(|t| t.unwrap_or_else(empty_tree_id))
            .map_err(Error::git("read a tree"))
    }

    /// None when the result is an empty tree.
    fn tree_without_parts(&self, tree: Oid, parts: &[String]) -> Result<Option<Oid>, git2::Error> {
        let Some((first, rest)) = parts.split_first() else {
            return Ok(None);
        };
        let items = self.tree_items(tree)?;
        let Some(Item { id, is_tree, .. }) = items.find(first.as_bytes()) else {
            return Ok(Some(tree));
        };
        if !rest.is_empty() && !is_tree {
            return Ok(Some(tree));
        }
        let replacement = if rest.is_empty() {
            None
        } else {
            self.tree_without_parts(id, rest)?
        };
        if replacement == Some(id) {
            return Ok(Some(tree));
        }
        // Serialise the tree as git does (git's order: a folder sorts as if its name ended in
        // `/`) and hash it.
        let mut kept: Vec<Item> = items
            .iter()
            .filter_map(|item| {
                if item.name == first.as_bytes() {
                    replacement.map(|id| Item { id, ..item })
                } else {
                    Some(item)
                }
            })
            .collect();
        if kept.is_empty() {
            return Ok(None);
        }
        kept.sort_by(|a, b| a.git_order(b));
        let mut bytes = Vec::new();
        for item in kept {
            bytes.extend_from_slice(format!("{:o} ", item.mode).as_bytes());
            bytes.extend_from_slice(item.name);
            bytes.push(0);
            bytes.extend_from_slice(item.id.as_bytes());
        }
        Oid::hash_object(git2::ObjectType::Tree, &bytes).map(Some)
    }

    /// Stage a commit's tree without touching the index on disk: `Stage::All` as `git add -A`
    /// (in the repository's index, in memory, until [`Repo::finish_commit`] writes it);
    /// `Stage::GoalOnly` as `git commit --only <goal dir>` (the parent's tree plus the goal folder,
    /// whatever else is staged). `changes` then set goal files to given bytes (None: deleted),
    /// whatever the working tree holds. `after` chains a second commit onto a first one not made
    /// yet (`done`, `init --replace`).
    pub fn stage(
        &self,
        stage: Stage,
        goal_dir: &Path,
        after: Option<&Staging>,
        changes: &[(PathBuf, Option<Vec<u8>>)],
    ) -> Result<Staging> {
        self.ensure_idle()?;
        // Fail the way git does, before any hook runs, when no identity is configured.
        self.identity("AUTHOR")?;
        self.identity("COMMITTER")?;
        let parent_tree = match after {
            Some(first) => Some(first.tree),
            None => self.head_tree()?,
        };
        let tree = match stage {
            Stage::All if after.is_none() => self.stage_all_in_index(changes),
            _ => self.stage_goal_only(parent_tree, goal_dir, changes),
        }
        .map_err(Error::git("stage the changes"))?;
        crate::fault::point("git: staged in memory");
        Ok(Staging {
            tree,
            parent_tree,
            in_index: stage == Stage::All && after.is_none(),
            hook_tree: None,
        })
    }

    fn stage_all_in_index(
        &self,
        changes: &[(PathBuf, Option<Vec<u8>>)],
    ) -> std::result::Result<Oid, git2::Error> {
        let scan = self.scan(None)?;
        let mut index = self.inner.index()?;
        let staged = index
            .read(false)
            .and_then(|()| scan.stage(&self.root, &mut index))
            .and_then(|_| {
                for (path, bytes) in changes {
                    match bytes {
                        Some(bytes) => stage_bytes(&mut index, path, bytes)?,
                        None if index.get_path(path, 0).is_some() => index.remove_path(path)?,
                        None => {}
                    }
                }
                index.write_tree()
            });
        if staged.is_err() {
            let _ = index.read(true);
        }
        staged
    }

    /// `base` with the goal folder as the working tree has it, then `changes`: a tree update
    /// that never reads or writes the index.
    fn stage_goal_only(
        &self,
        base: Option<Oid>,
        goal_dir: &Path,
        changes: &[(PathBuf, Option<Vec<u8>>)],
    ) -> std::result::Result<Oid, git2::Error> {
        let base = match base {
            Some(tree) => self.inner.find_tree(tree)?,
            None => {
                let empty = self.inner.treebuilder(None)?.write()?;
                self.inner.find_tree(empty)?
            }
        };
        let mut before: Vec<PathBuf> = Vec::new();
        if let Ok(entry) = base.get_path(goal_dir)
            && let Ok(subtree) = self.inner.find_tree(entry.id())
        {
            subtree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
                if entry.kind() != Some(git2::ObjectType::Tree)
                    && let Ok(name) = entry.name()
                {
                    before.push(goal_dir.join(root).join(name));
                }
                git2::TreeWalkResult::Ok
            })?;
        }
        let mut files: Vec<(PathBuf, Option<(Oid, git2::FileMode)>)> = Vec::new();
        let mut on_disk = Vec::new();
        list_files(&self.root, goal_dir, &mut on_disk);
        for rel in on_disk {
            if changes.iter().any(|(p, _)| *p == rel) {
                continue;
            }
            if !before.contains(&rel) && self.inner.status_should_ignore(&rel).unwrap_or(false) {
                continue;
            }
            let path = self.root.join(&rel);
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            files.push((rel, Some((self.inner.blob(&bytes)?, file_mode(&path)))));
        }
        for (rel, bytes) in changes {
            let staged = match bytes {
                Some(bytes) => Some((self.inner.blob(bytes)?, file_mode(&self.root.join(rel)))),
                None => None,
            };
            files.push((rel.clone(), staged));
        }
        let mut update = git2::build::TreeUpdateBuilder::new();
        let mut touched = false;
        for old in &before {
            if !files.iter().any(|(p, _)| p == old) {
                update.remove(old);
                touched = true;
            }
        }
        for (rel, staged) in &files {
            match staged {
                Some((id, mode)) => {
                    update.upsert(rel, *id, *mode);
                    touched = true;
                }
                None if before.contains(rel) => {
                    update.remove(rel);
                    touched = true;
                }
                None => {}
            }
        }
        if !touched {
            return Ok(base.id());
        }
        update.create_updated(&self.inner, &base)
    }

    /// Write `staging`'s tree into an index file at `path` for the user's hooks
    /// (GIT_INDEX_FILE), starting from a copy of the real index so that its stat data spares them
    /// rehashing unchanged files.
    pub fn write_hook_index(&self, staging: &Staging, path: &Path) -> Result<()> {
        let real = self.inner.path().join("index");
        let _ = std::fs::remove_file(path);
        if real.exists() {
            std::fs::copy(&real, path).map_err(Error::io("cannot copy the index to", path))?;
        }
        let tree = self
            .inner
            .find_tree(staging.tree)
            .map_err(Error::git("read the staged tree"))?;
        let mut index = git2::Index::open(path).map_err(Error::git("open a temporary index"))?;
        index
            .read_tree(&tree)
            .and_then(|()| index.write())
            .map_err(Error::git("write a temporary index"))
    }

    /// Take back the tree of the index file at `path` after a pre-commit hook had it (a hook
    /// may `git add` what it fixed); true when it changed.
    pub fn reread_hook_index(&self, staging: &mut Staging, path: &Path) -> Result<bool> {
        let mut index = git2::Index::open(path).map_err(Error::git("read a temporary index"))?;
        let tree = index
            .write_tree_to(&self.inner)
            .map_err(Error::git("read a temporary index"))?;
        if tree == staging.tree {
            return Ok(false);
        }
        staging.hook_tree.get_or_insert(staging.tree);
        staging.tree = tree;
        Ok(true)
    }

    /// Drop a staging that will not be committed (the index on disk was never changed).
    pub fn discard(&self, staging: &Staging) {
        if staging.in_index
            && let Ok(mut index) = self.inner.index()
        {
            let _ = index.read(true);
        }
    }

    /// Whether git config asks for signed commits (`commit.gpgsign`).
    pub fn signs_commits(&self) -> bool {
        self.inner
            .config()
            .and_then(|c| c.get_bool("commit.gpgsign"))
            .unwrap_or(false)
    }

    /// Make the commit of `staging` on HEAD: the commit object (signed as git config says),
    /// then the index on disk, then the branch. Nothing is left of a commit that fails before
    /// the branch moves but an unreachable object.
    pub fn finish_commit(&self, staging: &Staging, message: &str) -> Result<Oid> {
        let result = self.finish_commit_inner(staging, message);
        if result.is_err() && staging.in_index {
            // Throw the in-memory staging away: the index on disk stays as it was.
            if let Ok(mut index) = self.inner.index() {
                let _ = index.read(true);
            }
        }
        result
    }

    fn finish_commit_inner(&self, staging: &Staging, message: &str) -> Result<Oid> {
        self.ensure_idle()?;
        let head = self.head_commit()?;
        let parents: Vec<&git2::Commit> = head.iter().collect();
        let oid = if self.signs_commits() {
            self.commit_signed(staging.tree, head.as_ref().map(|c| c.id()), message)?
        } else {
            let author = self.identity("AUTHOR")?;
            let committer = self.identity("COMMITTER")?;
            let tree = self
                .inner
                .find_tree(staging.tree)
                .map_err(Error::git("read the staged tree"))?;
            self.inner
                .commit(None, &author, &committer, message, &tree, &parents)
                .map_err(|e| self.locked(e, "commit"))?
        };
        self.write_index(staging)?;
        self.advance_head(oid, head.as_ref().map(|c| c.id()), message)?;
        Ok(oid)
    }

    /// `git commit-tree -S`: git signs with the configured format, key and program.
    fn commit_signed(&self, tree: Oid, parent: Option<Oid>, message: &str) -> Result<Oid> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut command = Command::new("git");
        command
            .current_dir(&self.root)
            .env_remove("GIT_INDEX_FILE")
            .args(["commit-tree", "-S", "-F", "-"])
            .arg(tree.to_string());
        if let Some(parent) = parent {
            command.arg("-p").arg(parent.to_string());
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| Error::Spawn {
                program: "git".into(),
                source,
            })?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(message.as_bytes());
        }
        let out = child.wait_with_output().map_err(|source| Error::Spawn {
            program: "git".into(),
            source,
        })?;
        let id = String::from_utf8_lossy(&out.stdout).trim().to_string();
        match (out.status.success(), Oid::from_str(&id)) {
            (true, Ok(oid)) => Ok(oid),
            _ => Err(Error::SignFailed {
                output: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
        }
    }

    /// Write the index on disk as the commit leaves it: `Stage::All`'s staged index; for a
    /// goal-only commit, the index as it was with only the committed changes applied (what
    /// else the user staged stays staged).
    fn write_index(&self, staging: &Staging) -> Result<()> {
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        let applied = if staging.in_index {
            match staging.hook_tree {
                Some(before) => self.apply_changes(&mut index, Some(before), staging.tree),
                None => Ok(()),
            }
        } else {
            index
                .read(true)
                .and_then(|()| self.apply_changes(&mut index, staging.parent_tree, staging.tree))
        };
        if let Err(e) = applied {
            let _ = index.read(true);
            return Err(Error::git("update the index")(e));
        }
        index.write().map_err(|e| self.locked(e, "write the index"))
    }

    /// Apply the changes from tree `from` to tree `to` to `index`, keeping the stat data of
    /// files the working tree holds as committed.
    fn apply_changes(
        &self,
        index: &mut git2::Index,
        from: Option<Oid>,
        to: Oid,
    ) -> std::result::Result<(), git2::Error> {
        let from = from.map(|t| self.inner.find_tree(t)).transpose()?;
        let to = self.inner.find_tree(to)?;
        let diff = self
            .inner
            .diff_tree_to_tree(from.as_ref(), Some(&to), None)?;
        for delta in diff.deltas() {
            let new = delta.new_file();
            let Some(path) = new.path().or(delta.old_file().path()) else {
                continue;
            };
            if delta.status() == git2::Delta::Deleted {
                if index.get_path(path, 0).is_some() {
                    index.remove_path(path)?;
                }
                continue;
            }
            // The working file, when it is what is committed, gives the entry its stat data.
            if index.add_path(path).is_ok()
                && index.get_path(path, 0).is_some_and(|e| e.id == new.id())
            {
                continue;
            }
            index.add(&git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: u32::from(new.mode()),
                uid: 0,
                gid: 0,
                file_size: new.size() as u32,
                id: new.id(),
                flags: 0,
                flags_extended: 0,
                path: path.to_string_lossy().as_bytes().to_vec(),
            })?;
        }
        Ok(())
    }

    /// Move HEAD (its branch, or HEAD itself when detached) from `parent` to `oid`.
    fn advance_head(&self, oid: Oid, parent: Option<Oid>, message: &str) -> Result<()> {
        let subject = message.lines().next().unwrap_or("");
        let log = match parent {
            Some(_) => format!("commit: {subject}"),
            None => format!("commit (initial): {subject}"),
        };
        let head = self
            .inner
            .find_reference("HEAD")
            .map_err(Error::git("read HEAD"))?;
        let result = match head.symbolic_target().ok().flatten() {
            Some(branch) => match parent {
                Some(parent) => self
                    .inner
                    .reference_matching(branch, oid, true, parent, &log)
                    .map(|_| ()),
                None => self.inner.reference(branch, oid, false, &log).map(|_| ()),
            },
            None => self.inner.set_head_detached(oid),
        };
        result.map_err(|e| self.locked(e, "move HEAD"))
    }

    /// The paths a commit adds (new files, not in its first parent), leaving out `exclude`.
    pub fn added_paths(&self, commit: Oid, exclude: &Path) -> Result<Vec<String>> {
        let commit = self
            .inner
            .find_commit(commit)
            .map_err(Error::git("read a commit"))?;
        let parent = commit.parent(0).ok().map(|p| p.tree_id());
        let diff = self.diff_trees(parent, commit.tree_id())?;
        Ok(diff
            .deltas()
            .filter(|d| d.status() == git2::Delta::Added)
            .filter_map(|d| d.new_file().path().map(Path::to_path_buf))
            .filter(|p| !p.starts_with(exclude))
            .map(|p| p.to_string_lossy().into_owned())
            .collect())
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

    /// Commits from HEAD along first parents, newest first.
    pub fn first_parent_walk(&self) -> Result<impl Iterator<Item = Result<CommitInfo>> + '_> {
        // Parent by parent from HEAD: each commit is read once (a revwalk reads it too).
        let mut next = self.head_commit()?.map(|c| c.id());
        Ok(std::iter::from_fn(move || {
            let oid = next.take()?;
            Some(self.read_commit(oid).map(|(info, parent)| {
                next = parent;
                info
            }))
        }))
    }

    pub fn commit_info(&self, oid: Oid) -> Result<CommitInfo> {
        self.read_commit(oid).map(|(info, _)| info)
    }

    /// A commit and its first parent.
    fn read_commit(&self, oid: Oid) -> Result<(CommitInfo, Option<Oid>)> {
        let commit = self
            .inner
            .find_commit(oid)
            .map_err(Error::git("read a commit"))?;
        let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        let info = CommitInfo {
            id: oid,
            tree: commit.tree_id(),
            time: commit.time().seconds(),
            trailers: parse_trailers(&message),
            message,
        };
        Ok((info, commit.parent_id(0).ok()))
    }

    /// The diff between two trees (`from` None: the empty tree).
    fn diff_trees(&self, from: Option<Oid>, to: Oid) -> Result<git2::Diff<'_>> {
        let from = from
            .map(|t| self.inner.find_tree(t))
            .transpose()
            .map_err(Error::git("read tree"))?;
        let to = self.inner.find_tree(to).map_err(Error::git("read tree"))?;
        self.inner
            .diff_tree_to_tree(from.as_ref(), Some(&to), None)
            .map_err(Error::git("diff trees"))
    }

    /// `git diff --numstat --no-renames from to` summed, leaving out paths under `exclude`.
    ///
    /// Like git's own tree diff, it descends only into subtrees whose ids differ (libgit2's tree
    /// diff expands every subtree of both sides), and counts lines only for the blobs that
    /// changed; `exclude` is never entered.
    pub fn diff_stat(&self, from: Option<Oid>, to: Oid, exclude: &Path) -> Result<DiffStat> {
        let exclude = path_components(exclude);
        let mut changes = Vec::new();
        self.changed_blobs(from, Some(to), &exclude, "", &mut changes)
            .map_err(Error::git("diff trees"))?;
        let mut stat = DiffStat {
            files_changed: changes.len(),
            ..DiffStat::default()
        };
        for (_, old, new) in changes {
            let blob = |id: Option<Oid>| match id {
                Some(id) => self.inner.find_blob(id).ok(),
                None => None,
            };
            let (old, new) = (blob(old), blob(new));
            if old.is_none() && new.is_none() {
                continue;
            }
            let bytes = |b: &Option<git2::Blob>| b.as_ref().map(|b| b.content().to_vec());
            let (old, new) = (
                bytes(&old).unwrap_or_default(),
                bytes(&new).unwrap_or_default(),
            );
            if let Ok(patch) = git2::Patch::from_buffers(&old, None, &new, None, None)
                && let Ok((_, added, deleted)) = patch.line_stats()
            {
                stat.insertions += added;
                stat.deletions += deleted;
            }
        }
        Ok(stat)
    }

    /// The files that differ between two trees outside `exclude`, as (path, old blob, new blob)
    /// (None: absent on that side, or not a blob), in git's order. Like [`Repo::diff_stat`] it
    /// descends only into subtrees whose ids differ: cheap for one commit's change.
    pub fn changed_files(
        &self,
        from: Option<Oid>,
        to: Oid,
        exclude: &Path,
    ) -> Result<Vec<ChangedFile>> {
        let exclude = path_components(exclude);
        let mut changes = Vec::new();
        self.changed_blobs(from, Some(to), &exclude, "", &mut changes)
            .map_err(Error::git("diff trees"))?;
        Ok(changes)
    }

    /// The (path, old, new) blob ids of every file that differs between two trees (None: absent,
    /// or not a blob), outside the path `exclude` (as components; empty: nothing excluded);
    /// `prefix` is the folder of both trees (empty at the root).
    fn changed_blobs(
        &self,
        from: Option<Oid>,
        to: Option<Oid>,
        exclude: &[&[u8]],
        prefix: &str,
        out: &mut Vec<ChangedFile>,
    ) -> std::result::Result<(), git2::Error> {
        if from == to {
            return Ok(());
        }
        let none = std::rc::Rc::new(TreeItems::default());
        let old = match from {
            Some(t) => self.tree_items(t)?,
            None => none.clone(),
        };
        let new = match to {
            Some(t) => self.tree_items(t)?,
            None => none,
        };
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < new.len() {
            let order = match (old.get(i), new.get(j)) {
                (Some(a), Some(b)) => a.name.cmp(b.name),
                (Some(_), None) => std::cmp::Ordering::Less,
                _ => std::cmp::Ordering::Greater,
            };
            let (a, b) = match order {
                std::cmp::Ordering::Less => {
                    i += 1;
                    (old.get(i - 1), None)
                }
                std::cmp::Ordering::Greater => {
                    j += 1;
                    (None, new.get(j - 1))
                }
                std::cmp::Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (old.get(i - 1), new.get(j - 1))
                }
            };
            let name = a.or(b).map(|e| e.name).unwrap_or_default();
            let path = || {
                let name = String::from_utf8_lossy(name);
                if prefix.is_empty() {
                    name.into_owned()
                } else {
                    format!("{prefix}/{name}")
                }
            };
            let rest = match exclude.split_first() {
                Some((first, rest)) if *first == name => {
                    if rest.is_empty() {
                        continue;
                    }
                    rest
                }
                _ => &[][..],
            };
            if let (Some(a), Some(b)) = (a, b)
                && a.id == b.id
                && a.mode == b.mode
            {
                continue;
            }
            let tree = |e: Option<Item>| e.filter(|e| e.is_tree).map(|e| e.id);
            let (old_tree, new_tree) = (tree(a), tree(b));
            if old_tree.is_some() || new_tree.is_some() {
                self.changed_blobs(old_tree, new_tree, rest, &path(), out)?;
            }
            match (a.filter(|e| !e.is_tree), b.filter(|e| !e.is_tree)) {
                (None, None) => {}
                (x, y) => {
                    // A gitlink is a file that changed, with no lines to count.
                    let id = |e: Option<Item>| e.filter(|e| e.mode != MODE_GITLINK).map(|e| e.id);
                    out.push((path(), id(x), id(y)));
                }
            }
        }
        Ok(())
    }

    /// The changes between two trees outside `exclude`, as (path, added lines) for text files.
    pub fn added_lines(
        &self,
        from: Option<Oid>,
        to: Oid,
        exclude: &Path,
    ) -> Result<Vec<(String, usize, String)>> {
        let diff = self.diff_trees(from, to)?;
        let mut out = Vec::new();
        diff.foreach(
            &mut |_, _| true,
            None,
            None,
            Some(&mut |delta, _hunk, line| {
                let Some(path) = delta.new_file().path() else {
                    return true;
                };
                if path.starts_with(exclude) || line.origin() != '+' {
                    return true;
                }
                let text = String::from_utf8_lossy(line.content())
                    .trim_end_matches(['\n', '\r'])
                    .to_string();
                out.push((
                    path.to_string_lossy().into_owned(),
                    line.new_lineno().unwrap_or(0) as usize,
                    text,
                ));
                true
            }),
        )
        .map_err(Error::git("diff trees"))?;
        Ok(out)
    }
}

impl Repo {
    /// The paths that differ between two trees outside `exclude`: (added, modified or deleted).
    pub fn changed_paths(
        &self,
        from: Oid,
        to: Oid,
        exclude: &Path,
    ) -> Result<(Vec<String>, Vec<String>)> {
        let diff = self.diff_trees(Some(from), to)?;
        let (mut added, mut changed) = (Vec::new(), Vec::new());
        for delta in diff.deltas() {
            let Some(path) = delta.new_file().path().or(delta.old_file().path()) else {
                continue;
            };
            if path.starts_with(exclude) {
                continue;
            }
            let path = path.to_string_lossy().into_owned();
            match delta.status() {
                git2::Delta::Added => added.push(path),
                _ => changed.push(path),
            }
        }
        Ok((added, changed))
    }

    /// Which of `paths` the index tracks (the others are untracked files of the working tree).
    pub fn tracked(&self, paths: &[String]) -> Result<Vec<bool>> {
        if paths.is_empty() {
            // Loading the index of a large tree costs more than the rest of a `verify`.
            return Ok(Vec::new());
        }
        let index = self.inner.index().map_err(Error::git("read the index"))?;
        Ok(paths
            .iter()
            .map(|p| index.get_path(Path::new(p), 0).is_some())
            .collect())
    }
}

/// A tree entry as the tree diff compares it: name, id, whether it is a tree, mode.
const MODE_GITLINK: u32 = 0o160000;

/// A tree's entries, sorted by name, read from the raw object (no copy of each name).
/// A path's normal components as bytes (for walking trees by name).
fn path_components(path: &Path) -> Vec<&[u8]> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.as_encoded_bytes()),
            _ => None,
        })
        .collect()
}

/// A file that differs between two trees: its path, its blob before and after (None: absent).
pub type ChangedFile = (String, Option<Oid>, Option<Oid>);

#[derive(Default)]
struct TreeItems {
    data: Vec<u8>,
    items: Vec<RawItem>,
}

#[derive(Clone, Copy)]
struct RawItem {
    name: (u32, u32),
    id: Oid,
    is_tree: bool,
    mode: u32,
}

/// One entry of a tree.
#[derive(Clone, Copy)]
struct Item<'a> {
    name: &'a [u8],
    id: Oid,
    is_tree: bool,
    mode: u32,
}

impl Item<'_> {
    /// git's order of tree entries: a folder sorts as if its name ended in `/`.
    fn git_order(&self, other: &Item) -> std::cmp::Ordering {
        fn key<'a>(i: &Item<'a>) -> impl Iterator<Item = u8> + 'a {
            i.name.iter().copied().chain(i.is_tree.then_some(b'/'))
        }
        key(self).cmp(key(other))
    }
}

impl TreeItems {
    fn read(repo: &Repository, id: Oid) -> std::result::Result<TreeItems, git2::Error> {
        let odb = repo.odb()?;
        let object = odb.read(id)?;
        if object.kind() != git2::ObjectType::Tree {
            return Err(git2::Error::from_str(&format!("{id} is not a tree")));
        }
        let data = object.data().to_vec();
        let mut items = Vec::new();
        for entry in gix_object::TreeRefIter::from_bytes(&data, gix_index::hash::Kind::Sha1) {
            let entry = entry.map_err(|e| git2::Error::from_str(&format!("tree {id}: {e}")))?;
            let start = entry.filename.as_ptr() as usize - data.as_ptr() as usize;
            items.push(RawItem {
                name: (start as u32, entry.filename.len() as u32),
                id: Oid::from_bytes(entry.oid.as_bytes())?,
                is_tree: entry.mode.is_tree(),
                mode: u32::from(entry.mode.value()),
            });
        }
        let name = |r: &RawItem| &data[r.name.0 as usize..(r.name.0 + r.name.1) as usize];
        // git's order differs from the names' only around folders: nearly sorted already.
        if !items.is_sorted_by(|a, b| name(a) <= name(b)) {
            items.sort_by(|a, b| name(a).cmp(name(b)));
        }
        Ok(TreeItems { data, items })
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn get(&self, i: usize) -> Option<Item<'_>> {
        let raw = self.items.get(i)?;
        Some(Item {
            name: &self.data[raw.name.0 as usize..(raw.name.0 + raw.name.1) as usize],
            id: raw.id,
            is_tree: raw.is_tree,
            mode: raw.mode,
        })
    }

    fn iter(&self) -> impl Iterator<Item = Item<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The entry named `name`.
    fn find(&self, name: &[u8]) -> Option<Item<'_>> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let item = self.get(mid)?;
            match item.name.cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(item),
            }
        }
        None
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
            // whole (`goal log` streams; SPEC §9 wants it under 64 MiB).
            let _ = git2::opts::set_mwindow_size(2 * 1024 * 1024);
            let _ = git2::opts::set_mwindow_mapped_limit(8 * 1024 * 1024);
            let _ = git2::opts::set_cache_max_size(4 * 1024 * 1024);
        }
    });
}

fn empty_tree_id() -> Oid {
    Oid::hash_object(git2::ObjectType::Tree, b"").unwrap_or(Oid::ZERO_SHA1)
}

/// Stage `bytes` as the content of `path` (a regular file), whatever the working tree holds.
fn stage_bytes(
    index: &mut git2::Index,
    path: &Path,
    bytes: &[u8],
) -> std::result::Result<(), git2::Error> {
    let entry = git2::IndexEntry {
        ctime: git2::IndexTime::new(0, 0),
        mtime: git2::IndexTime::new(0, 0),
        dev: 0,
        ino: 0,
        mode: 0o100644,
        uid: 0,
        gid: 0,
        file_size: bytes.len() as u32,
        id: Oid::ZERO_SHA1,
        flags: 0,
        flags_extended: 0,
        path: path.to_string_lossy().as_bytes().to_vec(),
    };
    index.add_frombuffer(&entry, bytes)
}

/// The regular files under `dir` (relative to `root`), recursively; symlinks are not followed.
fn list_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let rel = dir.join(entry.file_name());
        match entry.file_type() {
            Ok(t) if t.is_dir() => list_files(root, &rel, out),
            Ok(t) if t.is_file() => out.push(rel),
            _ => {}
        }
    }
}

/// The git mode of a working file: executable or not (a new file is a plain one).
fn file_mode(path: &Path) -> git2::FileMode {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o111 != 0 => git2::FileMode::BlobExecutable,
        _ => git2::FileMode::Blob,
    }
}

/// The trailers of a commit message, as `git interpret-trailers --parse` reads them.
pub fn parse_trailers(message: &str) -> Vec<(String, String)> {
    match git2::message_trailers_strs(message) {
        Ok(trailers) => trailers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// GIT_AUTHOR_DATE / GIT_COMMITTER_DATE in the forms tests and scripts use: `@<epoch> [+zzzz]`,
/// `<epoch> +zzzz`, RFC 3339 and RFC 2822.
fn parse_git_date(text: &str) -> Option<Time> {
    let text = text.trim();
    let raw = text.strip_prefix('@').unwrap_or(text);
    let mut parts = raw.split_whitespace();
    if let Some(Ok(seconds)) = parts.next().map(str::parse::<i64>) {
        let offset = parts.next().and_then(parse_offset).unwrap_or(0);
        return Some(Time::new(seconds, offset));
    }
    let parsed = chrono::DateTime::parse_from_rfc3339(text)
        .or_else(|_| chrono::DateTime::parse_from_rfc2822(text));
    parsed
        .ok()
        .map(|d| Time::new(d.timestamp(), d.offset().local_minus_utc() / 60))
}

fn parse_offset(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    if digits.len() != 4 {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some(sign * (hours * 60 + minutes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_dates() {
        let cases: &[(&str, Option<(i64, i32)>)] = &[
            ("@1700000000 +0000", Some((1_700_000_000, 0))),
            ("1700000000 -0130", Some((1_700_000_000, -90))),
            ("2026-11-30T15:04:05Z", Some((1_796_051_045, 0))),
            ("Mon, 30 Nov 2026 15:04:05 +0100", Some((1_796_047_445, 60))),
            ("yesterday", None),
        ];
        for (text, want) in cases {
            let got = parse_git_date(text).map(|t| (t.seconds(), t.offset_minutes()));
            assert_eq!(got, *want, "{text}");
        }
    }

    #[test]
    fn trailers() {
        let t = parse_trailers("goal: x\n\nbody\n\nGoal-Iteration: 2\nGoal-Status: blocked\n");
        assert_eq!(
            t,
            [
                ("Goal-Iteration".to_string(), "2".to_string()),
                ("Goal-Status".to_string(), "blocked".to_string())
            ]
        );
    }
}
