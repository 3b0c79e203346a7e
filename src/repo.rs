//! The only user of git2: open the repository, snapshot trees, commit with trailers, walk history.
//!
//! Everything else speaks of goals, trees (as hex ids) and commits (as `CommitInfo`).

use std::path::{Component, Path, PathBuf};

use git2::{IndexAddOption, Repository, RepositoryState, Signature, Time};

/// An object id (commit, tree, blob). The one git2 type the rest of the crate sees.
pub use git2::Oid;

use crate::error::{Error, Result};

/// An open, non-bare repository with a working tree.
pub struct Repo {
    inner: Repository,
    root: PathBuf,
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

/// What the gate sees of a commit about to be made.
pub struct Staged<'a> {
    pub repo: &'a Repo,
    /// The tree that will be committed.
    pub tree: Oid,
    /// HEAD's tree, if HEAD is born.
    pub head_tree: Option<Oid>,
    pub message: &'a str,
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
        Ok(Repo { inner, root })
    }

    /// Open the repository a git hook runs in: honours GIT_DIR and GIT_INDEX_FILE (git sets a
    /// temporary index for `git commit -a` and `git commit <paths>`).
    pub fn for_hook(dir: &Path) -> Result<Repo> {
        tune();
        let repo = if std::env::var_os("GIT_DIR").is_some() {
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
            Repo { inner, root }
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
    pub fn head_id(&self) -> Result<Option<Oid>> {
        Ok(self.head_commit()?.map(|c| c.id()))
    }

    pub fn head_tree(&self) -> Result<Option<Oid>> {
        Ok(self.head_commit()?.map(|c| c.tree_id()))
    }

    /// The bytes of `path` (relative to the root) in `tree`, if it is a file there.
    pub fn file_in_tree(&self, tree: Oid, path: &Path) -> Result<Option<Vec<u8>>> {
        let tree = self
            .inner
            .find_tree(tree)
            .map_err(Error::git("read tree"))?;
        let entry = match tree.get_path(path) {
            Ok(entry) => entry,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(Error::git("read tree")(e)),
        };
        match entry.to_object(&self.inner).map(|o| o.into_blob()) {
            Ok(Ok(blob)) => Ok(Some(blob.content().to_vec())),
            _ => Ok(None),
        }
    }

    /// The blob id of `path` in `tree`, if it is a file there (cheap: no content is read).
    pub fn blob_id(&self, tree: Oid, path: &Path) -> Result<Option<Oid>> {
        let tree = self
            .inner
            .find_tree(tree)
            .map_err(Error::git("read tree"))?;
        match tree.get_path(path) {
            Ok(entry) if entry.kind() == Some(git2::ObjectType::Blob) => Ok(Some(entry.id())),
            Ok(_) => Ok(None),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(Error::git("read tree")(e)),
        }
    }

    /// The tree of the index as it is staged now.
    pub fn index_tree(&self) -> Result<Oid> {
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        index
            .write_tree()
            .map_err(Error::git("write the staged tree"))
    }

    /// The tree the working tree would have if everything were staged (`git add -A`), without
    /// touching the real index.
    pub fn worktree_tree(&self) -> Result<Oid> {
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        let result = stage_all(&mut index).and_then(|()| index.write_tree());
        // Throw the in-memory staging away: the index on disk is not ours to change here.
        index.read(true).map_err(Error::git("reload the index"))?;
        result.map_err(Error::git("snapshot the working tree"))
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
        let t = self.inner.find_tree(tree)?;
        let Some(entry) = t.get_name(first) else {
            return Ok(Some(tree));
        };
        let is_tree = entry.kind() == Some(git2::ObjectType::Tree);
        if !rest.is_empty() && !is_tree {
            return Ok(Some(tree));
        }
        let replacement = if rest.is_empty() {
            None
        } else {
            self.tree_without_parts(entry.id(), rest)?
        };
        if replacement == Some(entry.id()) {
            return Ok(Some(tree));
        }
        // Serialise the tree as git does (entries stay in git's order) and hash it.
        let mut bytes = Vec::new();
        let mut any = false;
        for e in t.iter() {
            let id = if e.name_bytes() == first.as_bytes() {
                match replacement {
                    Some(id) => id,
                    None => continue,
                }
            } else {
                e.id()
            };
            any = true;
            bytes.extend_from_slice(format!("{:o} ", e.filemode()).as_bytes());
            bytes.extend_from_slice(e.name_bytes());
            bytes.push(0);
            bytes.extend_from_slice(id.as_bytes());
        }
        if !any {
            return Ok(None);
        }
        Oid::hash_object(git2::ObjectType::Tree, &bytes).map(Some)
    }

    /// Stage (`stage`), let the gate look at the result, and commit it on HEAD. The index on disk
    /// is written only when the gate says yes.
    pub fn commit(
        &self,
        stage: Stage,
        goal_dir: &Path,
        message: &str,
        overrides: &[(PathBuf, Vec<u8>)],
        gate: &dyn Fn(&Staged) -> Result<()>,
    ) -> Result<Oid> {
        self.ensure_idle()?;
        let author = self.identity("AUTHOR")?;
        let committer = self.identity("COMMITTER")?;
        let head = self.head_commit()?;
        let mut index = self.inner.index().map_err(Error::git("read the index"))?;
        index.read(false).map_err(Error::git("read the index"))?;
        let staged = match stage {
            Stage::All => stage_all(&mut index),
            Stage::GoalOnly => stage_path(&mut index, goal_dir),
        }
        .and_then(|()| {
            for (path, bytes) in overrides {
                stage_bytes(&mut index, path, bytes)?;
            }
            index.write_tree()
        });
        let tree = match staged {
            Ok(tree) => tree,
            Err(e) => {
                let _ = index.read(true);
                return Err(Error::git("stage the changes")(e));
            }
        };
        let view = Staged {
            repo: self,
            tree,
            head_tree: head.as_ref().map(|c| c.tree_id()),
            message,
        };
        crate::fault::point("git: staged in memory");
        if let Err(e) = gate(&view) {
            let _ = index.read(true);
            return Err(e);
        }
        index
            .write()
            .map_err(|e| self.locked(e, "write the index"))?;
        let tree = self
            .inner
            .find_tree(tree)
            .map_err(Error::git("read the staged tree"))?;
        let parents: Vec<&git2::Commit> = head.iter().collect();
        self.inner
            .commit(Some("HEAD"), &author, &committer, message, &tree, &parents)
            .map_err(|e| self.locked(e, "commit"))
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
        let mut walk = self.inner.revwalk().map_err(Error::git("walk history"))?;
        walk.simplify_first_parent()
            .map_err(Error::git("walk history"))?;
        if self.head_commit()?.is_some() {
            walk.push_head().map_err(Error::git("walk history"))?;
        }
        Ok(walk.map(move |oid| {
            let oid = oid.map_err(Error::git("walk history"))?;
            self.commit_info(oid)
        }))
    }

    pub fn commit_info(&self, oid: Oid) -> Result<CommitInfo> {
        let commit = self
            .inner
            .find_commit(oid)
            .map_err(Error::git("read a commit"))?;
        let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        Ok(CommitInfo {
            id: oid,
            tree: commit.tree_id(),
            time: commit.time().seconds(),
            trailers: parse_trailers(&message),
            message,
        })
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
    pub fn diff_stat(&self, from: Option<Oid>, to: Oid, exclude: &Path) -> Result<DiffStat> {
        let diff = self.diff_trees(from, to)?;
        let mut stat = DiffStat::default();
        for (i, delta) in diff.deltas().enumerate() {
            let path = delta.new_file().path().or(delta.old_file().path());
            if path.is_some_and(|p| p.starts_with(exclude)) {
                continue;
            }
            stat.files_changed += 1;
            if let Ok(Some(patch)) = git2::Patch::from_diff(&diff, i)
                && let Ok((_, added, deleted)) = patch.line_stats()
            {
                stat.insertions += added;
                stat.deletions += deleted;
            }
        }
        Ok(stat)
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
}

/// libgit2 re-hashes every object it reads unless told not to; git itself does not, and `goal log`
/// reads thousands of objects.
fn tune() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        git2::opts::strict_hash_verification(false);
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

fn stage_all(index: &mut git2::Index) -> std::result::Result<(), git2::Error> {
    index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
    index.update_all(["*"], None)
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

fn stage_path(index: &mut git2::Index, dir: &Path) -> std::result::Result<(), git2::Error> {
    let spec = dir.to_string_lossy().into_owned();
    index.add_all([spec.as_str()], IndexAddOption::DEFAULT, None)?;
    index.update_all([spec.as_str()], None)
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
