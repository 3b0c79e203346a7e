//! The working tree as `git add -A` would stage it, read the way git reads it: a file whose stat
//! data matches its index entry (and is not racily clean) keeps the entry's blob id unread; only
//! changed, racy and untracked files are hashed. The index on disk is never written.

use std::collections::HashSet;
use std::ops::Range;
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use std::path::{Path, PathBuf};

use git2::{Index, IndexEntry, IndexTime, Repository};

/// Index entry flags (libgit2's `GIT_INDEX_ENTRY_*`).
const VALID: u16 = 0x8000;
const STAGE_MASK: u16 = 0x3000;
const INTENT_TO_ADD: u16 = 1 << 13;
const SKIP_WORKTREE: u16 = 1 << 14;

const MODE_FILE: u32 = 0o100644;
const MODE_EXEC: u32 = 0o100755;
const MODE_LINK: u32 = 0o120000;
const MODE_GITLINK: u32 = 0o160000;

/// Files per thread below which stat calls are not worth another thread.
const STAT_CHUNK: usize = 2_000;

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
    /// Put `index` back as it was before [`stage_all`].
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

/// Stage the working tree into `index` (in memory) as `git add -A` would: files whose stat data
/// matches their entry are not read; changed, racy and untracked ones are hashed (their blobs
/// written, as git writes them). `index_file` is the index's file, whose mtime tells racily clean
/// entries apart.
pub(super) fn stage_all(
    repo: &Repository,
    root: &Path,
    index: &mut Index,
    index_file: Option<&Path>,
) -> Result<Undo, git2::Error> {
    let config = repo.config()?;
    let flag = |key: &str, default: bool| config.get_bool(key).unwrap_or(default);
    // The stamp is read before the index is (re)loaded, so that an index rewritten meanwhile errs
    // on the side of hashing more.
    let stamp = index_file
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| (m.mtime(), m.mtime_nsec()));
    index.read(false)?;
    let rules = Rules {
        filemode: flag("core.filemode", true),
        trust_ctime: flag("core.trustctime", true),
        full_stat: !config
            .get_string("core.checkStat")
            .is_ok_and(|v| v.eq_ignore_ascii_case("minimal")),
        stamp,
    };
    let entries: Vec<IndexEntry> = index.iter().collect();
    let mut tracked_dirs: HashSet<&[u8]> = HashSet::new();
    let mut previous: Option<&[u8]> = None;
    for entry in &entries {
        let parent = parent_of(&entry.path);
        // Sorted paths: a folder's files come together, so most parents repeat the previous one.
        if previous == Some(parent) {
            continue;
        }
        previous = Some(parent);
        let mut path = entry.path.as_slice();
        while let Some(cut) = path.iter().rposition(|&b| b == b'/') {
            path = &path[..cut];
            if !tracked_dirs.insert(path) {
                break;
            }
        }
    }
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
        untracked,
        shadowed,
        ..
    } = walk;

    let mut undo = Undo::default();
    let mut last: Option<&[u8]> = None;
    for (entry, found) in entries.iter().zip(found) {
        let path = bytes_path(&entry.path);
        let stage = (entry.flags & STAGE_MASK) >> 12;
        let under_shadow = shadowed
            .iter()
            .any(|dir| entry.path.starts_with(dir) && entry.path.get(dir.len()) == Some(&b'/'));
        let action = match found {
            // `git add -A` resolves a conflict with whatever the working tree holds.
            _ if stage != 0 => Action::Stage,
            _ if under_shadow => Action::Remove,
            Found::Same => continue,
            Found::Gone => Action::Remove,
            Found::Look => Action::Stage,
        };
        undo.replaced.push(copy(entry));
        if last == Some(entry.path.as_slice()) {
            continue;
        }
        last = Some(&entry.path);
        let exists = std::fs::symlink_metadata(root.join(path)).is_ok();
        match action {
            Action::Stage if exists => {
                if let Err(e) = index.add_path(path) {
                    // An uninitialised submodule (an empty folder) keeps its gitlink, as in git.
                    if entry.mode != MODE_GITLINK {
                        return Err(e);
                    }
                }
            }
            _ => index.remove_path(path)?,
        }
    }
    for path in untracked {
        match index.add_path(&path) {
            Ok(()) => undo.added.push(path),
            // A repository without a commit: git refuses it too; the tree goes on without it.
            Err(_) if root.join(&path).is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(undo)
}

enum Action {
    Stage,
    Remove,
}

/// `lstat` every index entry, on as many threads as are worth it. Paths are looked up relative
/// to the worktree root's descriptor, as git looks them up relative to its working directory.
fn stat_all<R>(
    root: &Path,
    entries: &[IndexEntry],
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
fn stat_one(folder: &mut Folder, entry: &IndexEntry, rules: Rules) -> Found {
    use rustix::fs::FileType;
    if entry.flags & VALID != 0 || entry.flags_extended & SKIP_WORKTREE != 0 {
        // assume-unchanged and sparse entries: git does not look at the file.
        return Found::Same;
    }
    let Some(st) = folder.lstat(&entry.path) else {
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
    if entry.flags_extended & INTENT_TO_ADD != 0 || !mode_matches {
        return Found::Look;
    }
    let time = |t: IndexTime, sec: i64, nsec: i64| {
        i64::from(t.seconds()) == sec && i64::from(t.nanoseconds()) == nsec
    };
    let same = time(entry.mtime, st.st_mtime as i64, st.st_mtime_nsec as i64)
        && (!rules.trust_ctime || time(entry.ctime, st.st_ctime as i64, st.st_ctime_nsec as i64))
        && (!rules.full_stat
            || (entry.ino == st.st_ino as u32 && entry.uid == st.st_uid && entry.gid == st.st_gid))
        && entry.file_size == st.st_size as u32;
    // Racily clean: written in the same instant as the index, so a later change of the same size
    // would keep the same stat data. git re-reads such files; so does this.
    let racy = rules.stamp.is_none_or(|(sec, nsec)| {
        let m = (
            i64::from(entry.mtime.seconds()),
            i64::from(entry.mtime.nanoseconds()),
        );
        m >= (sec, nsec)
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
    entries: &'a [IndexEntry],
    tracked_dirs: &'a HashSet<&'a [u8]>,
    /// Untracked, not ignored paths (files, symlinks, repositories) to stage.
    untracked: Vec<PathBuf>,
    /// Tracked folders that are no longer folders (a file or symlink took their place).
    shadowed: Vec<Vec<u8>>,
}

impl Walk<'_> {
    /// The index entry at `path` among `range` (the entries under the folder being listed).
    fn find(&self, path: &[u8], range: &Range<usize>) -> Option<&IndexEntry> {
        let entries = &self.entries[range.clone()];
        entries
            .binary_search_by(|e| e.path.as_slice().cmp(path))
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
            let lo = range.start + entries.partition_point(|e| e.path < prefix);
            let hi = range.start
                + entries.partition_point(|e| e.path.starts_with(&prefix) || e.path < prefix);
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

fn copy(entry: &IndexEntry) -> IndexEntry {
    IndexEntry {
        path: entry.path.clone(),
        ..*entry
    }
}

fn bytes_path(bytes: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(bytes))
}
