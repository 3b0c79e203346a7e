//! Staging and committing: the goal files (or every change) staged in a private index, the
//! user's hooks given it, the commit made (signed as git config says) and HEAD advanced.

use super::*;

impl Repo {
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
        let changes = &with_goal_files(&self.root, goal_dir, changes);
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

    pub(super) fn stage_all_in_index(
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
    pub(super) fn stage_goal_only(
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

    pub(super) fn finish_commit_inner(&self, staging: &Staging, message: &str) -> Result<Oid> {
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
    pub(super) fn commit_signed(
        &self,
        tree: Oid,
        parent: Option<Oid>,
        message: &str,
    ) -> Result<Oid> {
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
    pub(super) fn write_index(&self, staging: &Staging) -> Result<()> {
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
    pub(super) fn apply_changes(
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
    pub(super) fn advance_head(&self, oid: Oid, parent: Option<Oid>, message: &str) -> Result<()> {
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
}

/// Stage `bytes` as the content of `path` (a regular file), whatever the working tree holds.
pub(super) fn stage_bytes(
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

/// The evidence ledger, beside GOAL.md.
pub const EVIDENCE_FILE: &str = "evidence.jsonl";
/// The retry guard's raw state, beside GOAL.md.
pub const RETRY_FILE: &str = "retry.json";

/// The regular files under `dir` (relative to `root`), recursively; symlinks are not followed.
/// `changes` and the goal's own files as the working tree has them (evidence.jsonl, retry.json),
/// so that they are staged as `git add -f` would, even where an ignore rule covers them: a goal
/// whose evidence is never committed is proven on one surface and not on another.
fn with_goal_files(
    root: &Path,
    goal_dir: &Path,
    changes: &[(PathBuf, Option<Vec<u8>>)],
) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut all = changes.to_vec();
    for name in [EVIDENCE_FILE, RETRY_FILE] {
        let rel = goal_dir.join(name);
        if all.iter().any(|(p, _)| *p == rel) {
            continue;
        }
        let path = root.join(&rel);
        // A symlink is refused elsewhere; only a plain file is the goal's.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && let Ok(bytes) = std::fs::read(&path)
        {
            all.push((rel, Some(bytes)));
        }
    }
    all
}

pub(super) fn list_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
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
pub(super) fn file_mode(path: &Path) -> git2::FileMode {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.permissions().mode() & 0o111 != 0 => git2::FileMode::BlobExecutable,
        _ => git2::FileMode::Blob,
    }
}

impl Repo {
    /// The ignore rule that covers `rel` (a path from the root), as `git check-ignore -v` names
    /// it: `.gitignore:1:/*`. None when no rule ignores it (or git cannot say).
    pub fn ignore_rule(&self, rel: &Path) -> Option<String> {
        let out = std::process::Command::new("git")
            .arg("check-ignore")
            .args(["-v", "--no-index", "--"])
            .arg(rel)
            .current_dir(&self.root)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let rule = text.lines().next()?.split('\t').next()?.to_string();
        // A matching `!pattern` is the rule that un-ignores the path.
        let pattern = rule.splitn(3, ':').nth(2).unwrap_or_default();
        (!pattern.starts_with('!') && !rule.is_empty()).then_some(rule)
    }
}
