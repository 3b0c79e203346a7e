//! Tree snapshots: files and blobs in a tree, the index and the working tree as trees, a tree
//! with a folder left out.

use super::*;

impl Repo {
    /// The entries of tree `id`, sorted by name, from the recent ones when it is one of them.
    pub(super) fn tree_items(
        &self,
        id: Oid,
    ) -> std::result::Result<std::rc::Rc<TreeItems>, git2::Error> {
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
    pub(super) fn scan(&self, keep: Option<&Path>) -> std::result::Result<scan::Scan, git2::Error> {
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
    pub(super) fn tree_without_parts(
        &self,
        tree: Oid,
        parts: &[String],
    ) -> Result<Option<Oid>, git2::Error> {
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
}

/// A submodule's mode in a tree.
pub(super) const MODE_GITLINK: u32 = 0o160000;

/// A tree's entries, sorted by name, read from the raw object (no copy of each name).
#[derive(Default)]
pub(super) struct TreeItems {
    pub(super) data: Vec<u8>,
    pub(super) items: Vec<RawItem>,
}

#[derive(Clone, Copy)]
pub(super) struct RawItem {
    pub(super) name: (u32, u32),
    pub(super) id: Oid,
    pub(super) is_tree: bool,
    pub(super) mode: u32,
}

/// One entry of a tree.
#[derive(Clone, Copy)]
pub(super) struct Item<'a> {
    pub(super) name: &'a [u8],
    pub(super) id: Oid,
    pub(super) is_tree: bool,
    pub(super) mode: u32,
}

impl Item<'_> {
    /// git's order of tree entries: a folder sorts as if its name ended in `/`.
    pub(super) fn git_order(&self, other: &Item) -> std::cmp::Ordering {
        fn key<'a>(i: &Item<'a>) -> impl Iterator<Item = u8> + 'a {
            i.name.iter().copied().chain(i.is_tree.then_some(b'/'))
        }
        key(self).cmp(key(other))
    }
}

impl TreeItems {
    pub(super) fn read(repo: &Repository, id: Oid) -> std::result::Result<TreeItems, git2::Error> {
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

    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    pub(super) fn get(&self, i: usize) -> Option<Item<'_>> {
        let raw = self.items.get(i)?;
        Some(Item {
            name: &self.data[raw.name.0 as usize..(raw.name.0 + raw.name.1) as usize],
            id: raw.id,
            is_tree: raw.is_tree,
            mode: raw.mode,
        })
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = Item<'_>> {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The entry named `name`.
    pub(super) fn find(&self, name: &[u8]) -> Option<Item<'_>> {
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
