//! Every file of a tree, and writing blobs and updated trees: what building a red tree needs.

use git2::{FileMode, ObjectType, TreeWalkMode, TreeWalkResult};

use super::snapshot::MODE_GITLINK;
use super::{Oid, Repo};
use crate::error::{Error, Result};

/// One file of a tree: its path from the root (`/`-separated), blob id and git file mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub path: String,
    pub id: Oid,
    /// 0o100644, 0o100755 or 0o120000 (a symbolic link).
    pub mode: u32,
}

/// One change to a tree: a file put at a path (created or replaced), or a path removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TreeChange {
    Upsert { path: String, id: Oid, mode: u32 },
    Remove { path: String },
}

impl Repo {
    /// Every file of `tree` (blobs and symbolic links, not submodules), sorted by path.
    pub fn tree_files(&self, tree: Oid) -> Result<Vec<TreeFile>> {
        let tree = self
            .inner
            .find_tree(tree)
            .map_err(Error::git("read a tree"))?;
        let mut files = Vec::new();
        tree.walk(TreeWalkMode::PreOrder, |root, entry| {
            let mode = u32::try_from(entry.filemode()).unwrap_or(0);
            if entry.kind() == Some(ObjectType::Blob)
                && mode != MODE_GITLINK
                && let Ok(name) = entry.name()
            {
                files.push(TreeFile {
                    path: format!("{root}{name}"),
                    id: entry.id(),
                    mode,
                });
            }
            TreeWalkResult::Ok
        })
        .map_err(Error::git("read a tree"))?;
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The bytes of blob `id`.
    pub fn blob_bytes(&self, id: Oid) -> Result<Vec<u8>> {
        let blob = self
            .inner
            .find_blob(id)
            .map_err(Error::git("read a file"))?;
        Ok(blob.content().to_vec())
    }

    /// Write `bytes` to the object database as a blob; its id.
    pub fn write_blob(&self, bytes: &[u8]) -> Result<Oid> {
        self.inner
            .blob(bytes)
            .map_err(Error::git("write a file to the object database"))
    }

    /// The id of the empty tree, written to the object database.
    pub fn empty_tree(&self) -> Result<Oid> {
        let builder = self
            .inner
            .treebuilder(None)
            .map_err(Error::git("write a tree"))?;
        builder.write().map_err(Error::git("write a tree"))
    }

    /// `base` with `changes` applied, written to the object database (folders made and
    /// dropped as needed); its id. Removing a path that is not there is no error.
    pub fn update_tree(&self, base: Oid, changes: &[TreeChange]) -> Result<Oid> {
        let base = self
            .inner
            .find_tree(base)
            .map_err(Error::git("read a tree"))?;
        let mut update = git2::build::TreeUpdateBuilder::new();
        for change in changes {
            match change {
                TreeChange::Upsert { path, id, mode } => {
                    let mode = match mode {
                        0o100755 => FileMode::BlobExecutable,
                        0o120000 => FileMode::Link,
                        _ => FileMode::Blob,
                    };
                    update.upsert(path.as_str(), *id, mode);
                }
                TreeChange::Remove { path } => {
                    update.remove(path.as_str());
                }
            }
        }
        update
            .create_updated(&self.inner, &base)
            .map_err(Error::git("write a tree"))
    }
}
