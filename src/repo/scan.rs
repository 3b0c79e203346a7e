//! The working tree as `git add -A` would stage it, read the way git reads it: a file whose stat
//! data matches its index entry (and is not racily clean) keeps the entry's blob id unread; only
//! changed, racy and untracked files are hashed. The index on disk is never written.
//!
//! The index is read with `gix-index` (a few milliseconds for 50,000 entries, where libgit2
//! spends several times that checksumming and copying it). When nothing changed, the tree is the
//! index's own cached tree and libgit2's index is never loaded; otherwise only the changed paths
//! are staged into it.

use std::collections::HashSet;
use std::ops::Range;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use std::path::{Path, PathBuf};

use git2::{Index, IndexEntry, Oid, Repository};
use gix_index::entry::{Flags, Mode, Stat};

const MODE_FILE: u32 = 0o100644;
const MODE_EXEC: u32 = 0o100755;
const MODE_LINK: u32 = 0o120000;
const MODE_GITLINK: u32 = 0o160000;

/// Files per thread below which stat calls are not worth another thread.
const STAT_CHUNK: usize = 2_000;

/// One index entry as the scan sees it: its path and what git recorded of the file.
struct Tracked<'a> {
    path: &'a [u8],
    mode: u32,
    flags: Flags,
    stat: Stat,
}

/// What the scan found for one index entry.
enum Found {
    /// Stat data matches and the entry is not racy: the blob id stands.
    Same,
    /// Gone from the working tree (or no longer a file there).
    Gone,
    /// A file, symlink or submodule whose content must be looked at.
    Look,
}

/// How the repository's config says to compare stat data.
#[derive(Clone, Copy)]
struct Rules {
    /// `core.filemode`: the executable bit is tracked.
    filemode: bool,
    /// `core.trustctime`.
    trust_ctime: bool,
    /// `core.checkStat` is not `minimal`: inode, uid and gid are compared too.
    full_stat: bool,
    /// The index file's mtime (seconds, nanoseconds): an entry as new as this is racily clean.
    stamp: Option<(i64, i64)>,
}

/// What staging changed in an in-memory index: the entries it replaced or removed (by path) and
/// the paths it added, so that the index can be put back as it was without re-reading it.
#[derive(Default)]
pub(super) struct Undo {
    replaced: Vec<IndexEntry>,
    added: Vec<PathBuf>,
}

impl Undo {
    /// Put `index` back as it was before [`Scan::stage`].
    pub(super) fn apply(self, index: &mut Index) -> Result<(), git2::Error> {
        for path in &self.added {
            if index.get_path(path, 0).is_some() {
                index.remove_path(path)?;
            }
        }
        for entry in &self.replaced {
            index.add(entry)?;
        }
        Ok(())
    }
}

enum Action {
    Stage,
    Remove,
}

/// How the working tree differs from the index, as `git add -A` would see it.
pub(super) struct Scan {
    /// Index paths to stage again or remove (each once, in index order).
    changes: Vec<(Vec<u8>, Action)>,
    /// Untracked, not ignored paths (files, symlinks, repositories) to add.
    untracked: Vec<PathBuf>,
    /// The index's cached tree of everything it holds, when the cache is valid.
    cached_tree: Option<Oid>,
}

impl Scan {
    /// The tree when the working tree matches the index and the index knows its own tree: no
    /// file needs staging and no tree needs writing.
    pub(super) fn unchanged_tree(&self) -> Option<Oid> {
        if self.changes.is_empty() && self.untracked.is_empty() {
            self.cached_tree
        } else {
            None
        }
    }

    /// Stage what changed into `index` (libgit2's, in memory, holding what the scan read):
    /// changed files are hashed (their blobs written, as git writes them).
    pub(super) fn stage(self, root: &Path, index: &mut Index) -> Result<Undo, git2::Error> {
        let mut undo = Undo::default();
        for (path, action) in self.changes {
            let path = bytes_path(&path);
            for stage in 0..=3 {
                if let Some(entry) = index.get_path(path, stage) {
                    undo.replaced.push(entry);
                }
            }
            let exists = || std::fs::symlink_metadata(root.join(path)).is_ok();
            match action {
                Action::Stage if exists() => {
                    if let Err(e) = add_path(index, root, path) {
                        // An uninitialised submodule (an empty folder) keeps its gitlink, as in git.
                        let gitlink = index
                            .get_path(path, 0)
                            .is_some_and(|e| e.mode == MODE_GITLINK);
                        if !exists() {
                            // Deleted while it was read (another process at work in the tree):
                            // staged as git would stage it now, as a deletion.
                            index.remove_path(path)?;
                        } else if !gitlink {
                            return Err(named(path, e));
                        }
                    }
                }
                _ => index.remove_path(path)?,
            }
        }
        for path in self.untracked {
            match add_path(index, root, &path) {
                Ok(()) => undo.added.push(path),
                // A repository without a commit: git refuses it too; the tree goes on without it.
                Err(_) if root.join(&path).is_dir() => {}
                // Gone since the walk listed it (a temporary file another process renamed or
                // removed): not in the tree, as `git add -A` run now would not see it.
                Err(_) if std::fs::symlink_metadata(root.join(&path)).is_err() => {}
                Err(e) => return Err(named(&path, e)),
            }
        }
        Ok(undo)
    }
}

/// Stage `path` as it is now. A file another process is writing while it is read (an editor, an
/// agent, a test writing its next file) fails libgit2's read with a short count ("failed to
/// read file into stream"): it is read again, a few times, before that is an error.
fn add_path(index: &mut Index, root: &Path, path: &Path) -> Result<(), git2::Error> {
    let mut tries = 0;
    loop {
        match index.add_path(path) {
            Err(e)
                if e.class() == git2::ErrorClass::Os
                    && tries < 3
                    && std::fs::symlink_metadata(root.join(path)).is_ok_and(|m| m.is_file()) =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5 << tries));
            }
            done => return done,
        }
    }
}

/// libgit2's error for a file it could not stage, with the file's path (its own message has
/// none: "failed to read file into stream").
fn named(path: &Path, e: git2::Error) -> git2::Error {
    git2::Error::new(
        e.code(),
        e.class(),
        format!("{}: {}", path.display(), e.message()),
    )
}

/// Compare the working tree with the index in `index_file` as `git add -A` would: stat every
/// entry (unchanged files are not read) and list every folder for untracked files. What lies
/// under `keep` (a folder, relative to the root) stays as the index has it.
pub(super) fn scan(
    repo: &Repository,
    root: &Path,
    index_file: &Path,
    keep: Option<&Path>,
) -> Result<Scan, git2::Error> {
    let config = repo.config()?;
    // The stamp is read before the index is, so that an index rewritten meanwhile errs on the
    // side of hashing more.
    let stamp = std::fs::metadata(index_file)
        .ok()
        .map(|m| (m.mtime(), m.mtime_nsec()));
    let file = match stamp {
        Some(_) => Some(read_index(index_file)?),
        None => None,
    };
    let rules = rules(&config, stamp);
    let entries = tracked_entries(file.as_ref());
    let cached_tree = cached_tree(repo, file.as_ref());
    let tracked_dirs = tracked_dirs(&entries);
    let mut walk = Walk {
        repo,
        root,
        entries: &entries,
        tracked_dirs: &tracked_dirs,
        untracked: Vec::new(),
        shadowed: Vec::new(),
    };
    // The walk for untracked files runs here while other threads stat the index's files.
    let (found, walked) = stat_all(root, &entries, rules, || {
        walk.dir(&mut PathBuf::new(), 0..entries.len())
    });
    walked?;
    let Walk {
        mut untracked,
        shadowed,
        ..
    } = walk;
    let mut changes = changes(&entries, found, &shadowed);
    if let Some(keep) = keep {
        keep_as_indexed(keep, &mut changes, &mut untracked);
    }
    Ok(Scan {
        changes,
        untracked,
        cached_tree,
    })
}

/// The index file, read with `gix-index`.
fn read_index(index_file: &Path) -> Result<gix_index::File, git2::Error> {
    gix_index::File::at(
        index_file,
        gix_index::hash::Kind::Sha1,
        // git does not verify the index's checksum on every read either.
        true,
        gix_index::decode::Options::default(),
    )
    .map_err(|e| git2::Error::from_str(&format!("cannot read {}: {e}", index_file.display())))
}

/// How stat data is compared, as the repository's config says.
fn rules(config: &git2::Config, stamp: Option<(i64, i64)>) -> Rules {
    let flag = |key: &str, default: bool| config.get_bool(key).unwrap_or(default);
    Rules {
        filemode: flag("core.filemode", true),
        trust_ctime: flag("core.trustctime", true),
        full_stat: !config
            .get_string("core.checkStat")
            .is_ok_and(|v| v.eq_ignore_ascii_case("minimal")),
        stamp,
    }
}

/// The index's entries, in index order (none without an index file).
fn tracked_entries(file: Option<&gix_index::File>) -> Vec<Tracked<'_>> {
    file.map_or_else(Vec::new, |file| {
        file.entries()
            .iter()
            .map(|e| Tracked {
                path: e.path(file),
                mode: e.mode.bits(),
                flags: e.flags,
                stat: e.stat,
            })
            .collect()
    })
}

/// The index's cached tree, when it is valid and in the object database. A valid cached tree
/// names trees git wrote; one missing from the object database (a foreign tool's index) is not
/// trusted.
fn cached_tree(repo: &Repository, file: Option<&gix_index::File>) -> Option<Oid> {
    file.and_then(|f| f.tree())
        .filter(|t| t.num_entries.is_some())
        .and_then(|t| Oid::from_bytes(t.id.as_bytes()).ok())
        .filter(|&id| repo.odb().is_ok_and(|odb| odb.exists(id)))
}

/// Every folder that holds a tracked file, at any depth.
fn tracked_dirs<'a>(entries: &[Tracked<'a>]) -> HashSet<&'a [u8]> {
    let mut tracked_dirs: HashSet<&[u8]> = HashSet::new();
    let mut previous: Option<&[u8]> = None;
    for entry in entries {
        let parent = parent_of(entry.path);
        // Sorted paths: a folder's files come together, so most parents repeat the previous one.
        if previous == Some(parent) {
            continue;
        }
        previous = Some(parent);
        let mut path = entry.path;
        while let Some(cut) = path.iter().rposition(|&b| b == b'/') {
            path = &path[..cut];
            if !tracked_dirs.insert(path) {
                break;
            }
        }
    }
    tracked_dirs
}

/// The index paths to stage again or remove, each once and in index order, from what the stat
/// pass found and the tracked folders the walk found shadowed.
fn changes(entries: &[Tracked], found: Vec<Found>, shadowed: &[Vec<u8>]) -> Vec<(Vec<u8>, Action)> {
    let mut changes: Vec<(Vec<u8>, Action)> = Vec::new();
    for (entry, found) in entries.iter().zip(found) {
        let under_shadow = shadowed
            .iter()
            .any(|dir| entry.path.starts_with(dir) && entry.path.get(dir.len()) == Some(&b'/'));
        let action = match found {
            // `git add -A` resolves a conflict with whatever the working tree holds.
            _ if entry.flags.stage_raw() != 0 => Action::Stage,
            _ if under_shadow => Action::Remove,
            Found::Same => continue,
            Found::Gone => Action::Remove,
            Found::Look => Action::Stage,
        };
        if changes.last().is_some_and(|(p, _)| p == entry.path) {
            continue;
        }
        changes.push((entry.path.to_vec(), action));
    }
    changes
}

/// Drop the changes and untracked paths under `keep`: what lies there stays as the index has it.
fn keep_as_indexed(
    keep: &Path,
    changes: &mut Vec<(Vec<u8>, Action)>,
    untracked: &mut Vec<PathBuf>,
) {
    let keep = keep.as_os_str().as_encoded_bytes();
    let under = |p: &[u8]| p.starts_with(keep) && (p.len() == keep.len() || p[keep.len()] == b'/');
    changes.retain(|(p, _)| !under(p));
    untracked.retain(|p| !under(p.as_os_str().as_encoded_bytes()));
}

/// `lstat` every index entry, on as many threads as are worth it. Paths are looked up relative
/// to the worktree root's descriptor, as git looks them up relative to its working directory.
fn stat_all<R>(
    root: &Path,
    entries: &[Tracked],
    rules: Rules,
    meanwhile: impl FnOnce() -> R,
) -> (Vec<Found>, R) {
    use rustix::fs::{Mode, OFlags};
    let Ok(dir) = rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return (entries.iter().map(|_| Found::Look).collect(), meanwhile());
    };
    let dir = &dir;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min(entries.len().div_ceil(STAT_CHUNK).max(1));
    if threads <= 1 {
        let mut folder = Folder::new(dir);
        let found = entries
            .iter()
            .map(|e| stat_one(&mut folder, e, rules))
            .collect();
        return (found, meanwhile());
    }
    let chunk = entries.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut folder = Folder::new(dir);
                    part.iter()
                        .map(|e| stat_one(&mut folder, e, rules))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let result = meanwhile();
        let found = handles
            .into_iter()
            .zip(entries.chunks(chunk))
            .flat_map(|(h, part)| {
                // A scan thread only panics on a bug; look at every file of its part then.
                h.join()
                    .unwrap_or_else(|_| part.iter().map(|_| Found::Look).collect())
            })
            .collect();
        (found, result)
    })
}

/// The folder of the entries being stat-ed, kept open: each file is then looked up by its name
/// alone (index entries come sorted, so a folder's files come together).
struct Folder<'a> {
    root: &'a rustix::fd::OwnedFd,
    path: Vec<u8>,
    fd: Option<rustix::fd::OwnedFd>,
}

impl<'a> Folder<'a> {
    fn new(root: &'a rustix::fd::OwnedFd) -> Self {
        Folder {
            root,
            path: Vec::new(),
            fd: None,
        }
    }

    /// `lstat` of an index path; a folder on the way that is gone, or is a symlink now, makes
    /// the file gone (git does not look beyond a symlink either).
    fn lstat(&mut self, path: &[u8]) -> Option<rustix::fs::Stat> {
        use rustix::fs::{AtFlags, Mode, OFlags};
        let parent = parent_of(path);
        if parent.is_empty() {
            return rustix::fs::statat(self.root, bytes_path(path), AtFlags::SYMLINK_NOFOLLOW).ok();
        }
        if parent != self.path.as_slice() {
            self.path = parent.to_vec();
            self.fd = rustix::fs::openat(
                self.root,
                bytes_path(parent),
                OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok();
        }
        let name = &path[parent.len() + 1..];
        rustix::fs::statat(
            self.fd.as_ref()?,
            bytes_path(name),
            AtFlags::SYMLINK_NOFOLLOW,
        )
        .ok()
    }
}

// The widths of `stat`'s fields differ between platforms: the casts are no-ops only on some.
#[allow(clippy::unnecessary_cast)]
fn stat_one(folder: &mut Folder, entry: &Tracked, rules: Rules) -> Found {
    use rustix::fs::FileType;
    if entry
        .flags
        .intersects(Flags::ASSUME_VALID | Flags::SKIP_WORKTREE)
        || entry.mode == Mode::DIR.bits()
    {
        // assume-unchanged and sparse entries: git does not look at the file.
        return Found::Same;
    }
    let Some(st) = folder.lstat(entry.path) else {
        return Found::Gone;
    };
    let kind = FileType::from_raw_mode(st.st_mode);
    let mode_matches = match (entry.mode, kind) {
        (MODE_LINK, FileType::Symlink) => true,
        (MODE_GITLINK, FileType::Directory) => return Found::Look,
        (MODE_LINK | MODE_GITLINK, _) => false,
        (_, FileType::RegularFile) => !rules.filemode || exec_mode(st.st_mode) == entry.mode,
        _ => false,
    };
    match kind {
        FileType::RegularFile | FileType::Symlink => {}
        // A folder or a special file where a file was: the walk finds what is there now.
        _ => return Found::Gone,
    }
    if entry.flags.contains(Flags::INTENT_TO_ADD) || !mode_matches {
        return Found::Look;
    }
    let time = |t: gix_index::entry::stat::Time, sec: i64, nsec: i64| {
        i64::from(t.secs) == sec && i64::from(t.nsecs) == nsec
    };
    let stat = &entry.stat;
    let same = time(stat.mtime, st.st_mtime as i64, st.st_mtime_nsec as i64)
        && (!rules.trust_ctime || time(stat.ctime, st.st_ctime as i64, st.st_ctime_nsec as i64))
        && (!rules.full_stat
            || (stat.ino == st.st_ino as u32 && stat.uid == st.st_uid && stat.gid == st.st_gid))
        && stat.size == st.st_size as u32;
    // Racily clean: written in the same instant as the index, so a later change of the same size
    // would keep the same stat data. git re-reads such files; so does this.
    let racy = rules.stamp.is_none_or(|(sec, nsec)| {
        (i64::from(stat.mtime.secs), i64::from(stat.mtime.nsecs)) >= (sec, nsec)
    });
    if same && !racy {
        Found::Same
    } else {
        Found::Look
    }
}

/// The git mode of a regular file from its permission bits (git looks at the owner's x bit).
fn exec_mode(st_mode: u32) -> u32 {
    if st_mode & 0o100 != 0 {
        MODE_EXEC
    } else {
        MODE_FILE
    }
}

/// The walk for untracked files: every directory is listed once; a name the index knows is
/// skipped without a stat, as git does.
struct Walk<'a> {
    repo: &'a Repository,
    root: &'a Path,
    entries: &'a [Tracked<'a>],
    tracked_dirs: &'a HashSet<&'a [u8]>,
    /// Untracked, not ignored paths (files, symlinks, repositories) to stage.
    untracked: Vec<PathBuf>,
    /// Tracked folders that are no longer folders (a file or symlink took their place).
    shadowed: Vec<Vec<u8>>,
}

impl<'a> Walk<'a> {
    /// The index entry at `path` among `range` (the entries under the folder being listed).
    fn find(&self, path: &[u8], range: &Range<usize>) -> Option<&'a Tracked<'a>> {
        let entries = &self.entries[range.clone()];
        entries
            .binary_search_by(|e| e.path.cmp(path))
            .ok()
            .map(|i| &entries[i])
    }

    fn ignored(&self, path: &Path, dir: bool) -> bool {
        if dir {
            let mut with_slash = path.as_os_str().to_owned();
            with_slash.push("/");
            self.repo
                .status_should_ignore(Path::new(&with_slash))
                .unwrap_or(false)
        } else {
            self.repo.status_should_ignore(path).unwrap_or(false)
        }
    }

    /// List `rel` (a folder with tracked files, or an untracked one that is not ignored);
    /// `range` holds the index entries under it.
    fn dir(&mut self, rel: &mut PathBuf, range: Range<usize>) -> Result<(), git2::Error> {
        let Ok(list) = std::fs::read_dir(self.root.join(&*rel)) else {
            return Ok(());
        };
        for item in list.flatten() {
            let name = item.file_name();
            if name == ".git" {
                continue;
            }
            rel.push(&name);
            let result = self.one(rel, &item, &range);
            rel.pop();
            result?;
        }
        Ok(())
    }

    fn one(
        &mut self,
        rel: &mut PathBuf,
        item: &std::fs::DirEntry,
        range: &Range<usize>,
    ) -> Result<(), git2::Error> {
        let bytes = rel.as_os_str().as_encoded_bytes();
        let Ok(kind) = item.file_type() else {
            return Ok(());
        };
        if !kind.is_dir() {
            // Most names are tracked files: one search in the folder's entries settles them.
            if self.find(bytes, range).is_some() {
                return Ok(());
            }
            if self.tracked_dirs.contains(bytes) {
                // A file where a tracked folder was: the folder's entries are gone.
                self.shadowed.push(bytes.to_vec());
            }
            if kind.is_fifo()
                || kind.is_socket()
                || kind.is_block_device()
                || kind.is_char_device()
                || self.ignored(rel, false)
            {
                return Ok(());
            }
            self.untracked.push(rel.clone());
            return Ok(());
        }
        if self.tracked_dirs.contains(bytes) {
            let mut prefix = bytes.to_vec();
            prefix.push(b'/');
            let entries = &self.entries[range.clone()];
            let lo = range.start + entries.partition_point(|e| e.path < prefix.as_slice());
            let hi = range.start
                + entries
                    .partition_point(|e| e.path.starts_with(&prefix) || e.path < prefix.as_slice());
            return self.dir(rel, lo..hi);
        }
        if self
            .find(bytes, range)
            .is_some_and(|e| e.mode == MODE_GITLINK)
        {
            // A submodule: the index pass looks at it.
            return Ok(());
        }
        if self.ignored(rel, true) {
            return Ok(());
        }
        if self.root.join(&*rel).join(".git").exists() {
            self.untracked.push(rel.clone());
            return Ok(());
        }
        self.dir(rel, 0..0)
    }
}

/// The folder part of an index path (empty at the root).
fn parent_of(path: &[u8]) -> &[u8] {
    path.iter()
        .rposition(|&b| b == b'/')
        .map_or(&[][..], |cut| &path[..cut])
}

fn bytes_path(bytes: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}
