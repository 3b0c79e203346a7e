//! Diffs and history: first-parent walks, commit info, diff stats, added lines and paths.

use super::snapshot::{Item, MODE_GITLINK};
use super::*;

impl Repo {
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

    /// A commit and its first parent (None for a root commit).
    pub fn commit_and_parent(&self, oid: Oid) -> Result<(CommitInfo, Option<Oid>)> {
        self.read_commit(oid)
    }

    pub fn commit_info(&self, oid: Oid) -> Result<CommitInfo> {
        self.read_commit(oid).map(|(info, _)| info)
    }

    /// A commit and its first parent.
    pub(super) fn read_commit(&self, oid: Oid) -> Result<(CommitInfo, Option<Oid>)> {
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
    pub(super) fn diff_trees(&self, from: Option<Oid>, to: Oid) -> Result<git2::Diff<'_>> {
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
    pub(super) fn changed_blobs(
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
        for (a, b) in paired(&old, &new) {
            self.changed_entry(a, b, exclude, prefix, out)?;
        }
        Ok(())
    }

    /// The files that differ under one name of both trees (`a` the old entry, `b` the new one,
    /// None: absent on that side): none when the name is excluded or the same on both sides;
    /// else the files of its subtrees, then itself when it is a file on either side.
    fn changed_entry(
        &self,
        a: Option<Item>,
        b: Option<Item>,
        exclude: &[&[u8]],
        prefix: &str,
        out: &mut Vec<ChangedFile>,
    ) -> std::result::Result<(), git2::Error> {
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
                    return Ok(());
                }
                rest
            }
            _ => &[][..],
        };
        if let (Some(a), Some(b)) = (a, b)
            && a.id == b.id
            && a.mode == b.mode
        {
            return Ok(());
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

/// A file that differs between two trees: its path, its blob before and after (None: absent).
pub type ChangedFile = (String, Option<Oid>, Option<Oid>);

/// A path's normal components as bytes (for walking trees by name).
fn path_components(path: &Path) -> Vec<&[u8]> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.as_encoded_bytes()),
            _ => None,
        })
        .collect()
}

/// The entries of two trees side by side, by name: (old, new), None where a name is on one side
/// only.
fn paired<'t>(
    old: &'t TreeItems,
    new: &'t TreeItems,
) -> impl Iterator<Item = (Option<Item<'t>>, Option<Item<'t>>)> {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        if i >= old.len() && j >= new.len() {
            return None;
        }
        let order = match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) => a.name.cmp(b.name),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        Some(match order {
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
        })
    })
}

impl Repo {
    /// The commit the ref `name` points at (None: no such ref, or not a commit).
    pub fn ref_commit(&self, name: &str) -> Option<Oid> {
        self.inner
            .find_reference(name)
            .ok()
            .and_then(|r| r.peel_to_commit().ok())
            .map(|c| c.id())
    }

    /// Point the ref `name` at `oid`, creating it or moving it.
    pub fn set_ref(&self, name: &str, oid: Oid, log: &str) -> Result<()> {
        self.inner
            .reference(name, oid, true, log)
            .map(|_| ())
            .map_err(Error::git("write a ref"))
    }

    /// Whether `ancestor` is `descendant` or in its history.
    pub fn is_ancestor(&self, ancestor: Oid, descendant: Oid) -> bool {
        ancestor == descendant
            || self
                .inner
                .graph_descendant_of(descendant, ancestor)
                .unwrap_or(false)
    }
}
