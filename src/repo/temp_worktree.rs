//! Worktrees for running a command on another commit or tree than the working one.
//!
//! [`TempWorktree`]: a detached worktree in a temporary folder (the audit's replays), removed when
//! dropped, whatever happens: the run succeeds, fails, or is stopped by Ctrl-C.
//!
//! [`KeptWorktree`]: the one detached worktree a working tree keeps for its red, base and clean
//! runs, under the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`):
//! `checkouts/<hash of the working tree's path>/<the repository folder's name>`, so that the
//! paths a test sees look like the user's (no word naming goal or the kind of run). It is reset
//! to the tree of each run (`git clean -fdx` keeping `target/`, `git read-tree -u --reset`),
//! guarded by an OS lock of its own, and removed by `goal done` and `goal abandon`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Oid;
use crate::child;
use crate::error::{Error, Result};

pub struct TempWorktree {
    repo_root: PathBuf,
    /// The worktree's root.
    pub path: PathBuf,
    /// Holds the folder; removing it comes after `git worktree remove`.
    _dir: tempfile::TempDir,
}

/// Run git in `root` as a child of its own (signals passed on, no output shown); its success.
fn git_quiet(root: &Path, args: &[&str]) -> Result<bool> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match child::status(&mut command) {
        Ok(status) => Ok(status.success()),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Err(match child::interrupted() {
            Some(15) => Error::Interrupted {
                signal: "SIGTERM",
                code: 143,
            },
            _ => Error::Interrupted {
                signal: "SIGINT",
                code: 130,
            },
        }),
        Err(source) => Err(Error::Spawn {
            program: "git".into(),
            source,
        }),
    }
}

impl TempWorktree {
    /// `commit` checked out in a folder named `<prefix>…`.
    pub fn of_commit(repo_root: &Path, prefix: &str, commit: Oid) -> Result<TempWorktree> {
        let worktree = TempWorktree::folder(repo_root, prefix)?;
        let commit = commit.to_string();
        if !worktree.add(&["--quiet"], &commit)? {
            return Err(Error::refused(
                format!("cannot check out commit {commit} in a temporary worktree"),
                "check the repository with `git worktree list` and `git fsck`; CI must fetch the whole history (`fetch-depth: 0`)",
            ));
        }
        Ok(worktree)
    }

    /// `tree` read into a worktree whose HEAD is `head` (nothing is checked out until then).
    pub fn of_tree(repo_root: &Path, prefix: &str, head: Oid, tree: Oid) -> Result<TempWorktree> {
        let worktree = TempWorktree::folder(repo_root, prefix)?;
        let (head, tree) = (head.to_string(), tree.to_string());
        let added = worktree.add(&["--no-checkout", "--quiet"], &head)?
            && git_quiet(&worktree.path, &["read-tree", "--reset", "-u", &tree])?;
        if !added {
            return Err(Error::refused(
                format!("cannot check out tree {tree} in a temporary worktree"),
                "check the repository with `git worktree list` and `git fsck`",
            ));
        }
        Ok(worktree)
    }

    /// A temporary folder holding the worktree under the repository folder's name (`prefix` is
    /// no longer part of the path: a test must not read from it what kind of run it is in).
    fn folder(repo_root: &Path, _prefix: &str) -> Result<TempWorktree> {
        let dir = tempfile::Builder::new().tempdir().map_err(Error::io(
            "cannot create a temporary folder in",
            std::env::temp_dir(),
        ))?;
        Ok(TempWorktree {
            repo_root: repo_root.to_path_buf(),
            path: dir.path().join(folder_name(repo_root)),
            _dir: dir,
        })
    }

    fn add(&self, flags: &[&str], commit: &str) -> Result<bool> {
        add_worktree(&self.repo_root, &self.path, flags, commit)
    }
}

/// `git worktree add --detach FLAGS… <path> <commit>`, no hook run (a post-checkout hook could
/// come with the branch through core.hooksPath).
fn add_worktree(repo_root: &Path, path: &Path, flags: &[&str], commit: &str) -> Result<bool> {
    let target = path.to_string_lossy().into_owned();
    let mut args = vec![
        "-c",
        "core.hooksPath=/dev/null",
        "worktree",
        "add",
        "--detach",
    ];
    args.extend_from_slice(flags);
    args.extend([target.as_str(), commit]);
    git_quiet(repo_root, &args)
}

/// The repository folder's name (what the worktree's own folder is called).
fn folder_name(repo_root: &Path) -> std::ffi::OsString {
    repo_root
        .file_name()
        .map_or_else(|| "repo".into(), |n| n.to_os_string())
}

impl Drop for TempWorktree {
    fn drop(&mut self) {
        let target = self.path.to_string_lossy().into_owned();
        let removed = git_quiet(
            &self.repo_root,
            &["worktree", "remove", "--force", "--force", &target],
        )
        .unwrap_or(false);
        if !removed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        let _ = git_quiet(&self.repo_root, &["worktree", "prune"]);
    }
}

/// The folder under the cache folder that holds the kept worktrees.
pub const KEPT_FOLDER: &str = "checkouts";

/// The user's cache folder: `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache`, else the
/// temporary folder.
fn cache_home() -> PathBuf {
    let xdg = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from);
    if let Some(x) = xdg.filter(|x| x.is_absolute()) {
        return x;
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join(".cache"),
        None => std::env::temp_dir(),
    }
}

/// The folder of the kept worktree of the working tree at `work_root`:
/// `<cache>/checkouts/<16 hex digits of the SHA-256 of its path>`.
pub fn kept_home(work_root: &Path) -> PathBuf {
    let path = std::fs::canonicalize(work_root).unwrap_or_else(|_| work_root.to_path_buf());
    cache_home()
        .join(KEPT_FOLDER)
        .join(short_sha256(path.as_os_str().as_encoded_bytes()))
}

/// 16 hex digits of the SHA-256 of `bytes`: a short name that says nothing of what it names.
pub fn short_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The witness of a goal's base outside the work tree at `work_root`:
/// `<cache>/bases/<16 hex digits of the SHA-256 of its path>/<goal id>`.
pub fn base_witness(work_root: &Path, goal_id: &str) -> PathBuf {
    let kept = kept_home(work_root);
    let hex = kept.file_name().map(PathBuf::from).unwrap_or_default();
    cache_home().join("bases").join(hex).join(goal_id)
}

/// Where `goal hook <host>` records when it last ran for the work tree at `work_root`, outside
/// the repository: `<cache>/hooks/<16 hex digits of the SHA-256 of its path>/<host>`.
pub fn hook_record(work_root: &Path, host: &str) -> PathBuf {
    let kept = kept_home(work_root);
    let hex = kept.file_name().map(PathBuf::from).unwrap_or_default();
    cache_home().join("hooks").join(hex).join(host)
}

/// Whether `path` (as `git worktree list` gives it) is a kept worktree: `…/checkouts/<16 hex
/// digits>/<name>`. `goal fleet` leaves those out. Pure.
pub fn is_kept_path(path: &Path) -> bool {
    let Some(hash) = path.parent() else {
        return false;
    };
    let hex = hash.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let root = hash.parent().and_then(|r| r.file_name());
    hex.len() == 16
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
        && root.is_some_and(|r| r == KEPT_FOLDER)
}

/// The kept worktree of a working tree, checked out at a tree and locked while this lives.
pub struct KeptWorktree {
    /// The worktree's root.
    pub path: PathBuf,
    /// Whether it was made (or remade) for this run: its `target/` was seeded now.
    pub fresh: bool,
    _lock: std::fs::File,
}

fn cannot(doing: &str, path: &Path) -> Error {
    Error::refused(
        format!("cannot {doing} the worktree {}", path.display()),
        format!(
            "check the repository with `git worktree list` and `git fsck`, then remove {} and run the command again",
            path.display()
        ),
    )
}

impl KeptWorktree {
    /// The slot of the second kept worktree, where `goal done` runs an exam beside the clean run.
    pub const EXAM: &'static str = "exam";

    /// The kept worktree of `work_root` (a working tree of the repository), made where it is
    /// missing or broken, with `tree` checked out and HEAD at `head` (a commit, for git's
    /// bookkeeping). Waits for another run holding it.
    pub fn open(work_root: &Path, head: Oid, tree: Oid) -> Result<KeptWorktree> {
        KeptWorktree::open_slot(work_root, "", head, tree)
    }

    /// [`KeptWorktree::open`] of one of the working tree's kept worktrees: `slot` "" is the one
    /// every run uses, another names a second one beside it (`goal done` runs an exam there while
    /// the clean run holds the first), with its own lock and its own kept `target/`.
    pub fn open_slot(work_root: &Path, slot: &str, head: Oid, tree: Oid) -> Result<KeptWorktree> {
        let home = slot_home(work_root, slot);
        make_private(&home)?;
        let lock_path = home.join("lock");
        let lock = std::fs::File::create(&lock_path)
            .map_err(Error::io("cannot create the lock file", &lock_path))?;
        lock.lock()
            .map_err(Error::io("cannot lock the lock file", &lock_path))?;
        let path = home.join(folder_name(work_root));
        let head = head.to_string();
        let fresh = !is_worktree(&path);
        if fresh {
            // Two kept worktrees made at once (`goal done`'s red run and the exams beside it)
            // must not prune each other's half-made bookkeeping: one at a time in a process.
            static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
            let _making = MAKING.lock();
            // A folder left half made (or a worktree git forgot): made again, its target kept.
            let kept_target = home.join("target.kept");
            let _ = std::fs::remove_dir_all(&kept_target);
            let stashed = std::fs::rename(path.join("target"), &kept_target).is_ok();
            let _ = std::fs::remove_dir_all(&path);
            let _ = git_quiet(work_root, &["worktree", "prune"]);
            let flags = ["--no-checkout", "--quiet", "--force"];
            // Once more after a failure: a git command of another process may have held a lock.
            if !add_worktree(work_root, &path, &flags, &head)? {
                let _ = std::fs::remove_dir_all(&path);
                let _ = git_quiet(work_root, &["worktree", "prune"]);
                if !add_worktree(work_root, &path, &flags, &head)? {
                    return Err(cannot("make", &path));
                }
            }
            if stashed {
                let _ = std::fs::rename(&kept_target, path.join("target"));
            }
        } else if !git_quiet(&path, &["update-ref", "--no-deref", "HEAD", &head])? {
            return Err(cannot("move HEAD of", &path));
        }
        let tree = tree.to_string();
        let reset = git_quiet(&path, &["clean", "-fdxq", "-e", "/target"])?
            && git_quiet(&path, &["read-tree", "-u", "--reset", &tree])?;
        if !reset {
            return Err(cannot("reset", &path));
        }
        Ok(KeptWorktree {
            path,
            fresh,
            _lock: lock,
        })
    }

    /// Remove the kept worktrees of `work_root`, if there are any (`goal done`, `goal abandon`):
    /// waits for a run holding one. Each is moved aside to the cache's trash folder at once (git
    /// then forgets it: its folder is gone), and deleted there by a process left to run in the
    /// background, with whatever an earlier one left: a cargo `target/` can take many seconds
    /// to delete, which the command need not wait for. Failing to remove them is no error (they
    /// are a cache).
    pub fn remove(work_root: &Path) {
        let trash = cache_home().join(TRASH_FOLDER);
        let mut moved = false;
        for slot in ["", KeptWorktree::EXAM] {
            let home = slot_home(work_root, slot);
            if !home.is_dir() {
                continue;
            }
            let lock = std::fs::File::create(home.join("lock"));
            if let Ok(lock) = &lock {
                let _ = lock.lock();
            }
            let aside = trash.join(format!(
                "{}-{}",
                home.file_name()
                    .map_or_else(Default::default, |n| n.to_string_lossy()),
                std::process::id()
            ));
            if make_private(&trash).is_ok() && std::fs::rename(&home, &aside).is_ok() {
                moved = true;
                continue;
            }
            let path = home.join(folder_name(work_root));
            let target = path.to_string_lossy().into_owned();
            if path.exists() {
                let _ = git_quiet(
                    work_root,
                    &["worktree", "remove", "--force", "--force", &target],
                );
            }
            let _ = std::fs::remove_dir_all(&home);
            let _ = git_quiet(work_root, &["worktree", "prune"]);
        }
        if moved {
            let _ = git_quiet(work_root, &["worktree", "prune"]);
            delete_in_background(&trash);
        }
    }
}

/// The folder under the cache folder where removed kept worktrees wait to be deleted.
const TRASH_FOLDER: &str = "checkouts-removed";

/// Delete what `trash` holds by a process of its own, not waited for (its own process group, so
/// that a Ctrl-C at the terminal after the command ended does not stop it half way; what it
/// leaves, the next removal deletes).
fn delete_in_background(trash: &Path) {
    use std::os::unix::process::CommandExt;
    let Ok(entries) = std::fs::read_dir(trash) else {
        return;
    };
    let paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    if paths.is_empty() {
        return;
    }
    let _ = Command::new("rm")
        .arg("-rf")
        .arg("--")
        .args(&paths)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
}

/// The folder of one kept worktree of the working tree at `work_root` ([`kept_home`] for slot
/// ""): another slot's is beside it, `<cache>/checkouts/<16 hex digits of the SHA-256 of the
/// path and the slot>`, its worktree folder named as the first one's, so that a run cannot tell
/// by its folder's name which of them it runs in.
fn slot_home(work_root: &Path, slot: &str) -> PathBuf {
    if slot.is_empty() {
        return kept_home(work_root);
    }
    let path = std::fs::canonicalize(work_root).unwrap_or_else(|_| work_root.to_path_buf());
    let mut bytes = path.as_os_str().as_encoded_bytes().to_vec();
    bytes.push(0);
    bytes.extend_from_slice(slot.as_bytes());
    cache_home().join(KEPT_FOLDER).join(short_sha256(&bytes))
}

/// Create `dir` (and its parents) readable by its owner only.
fn make_private(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create the folder", dir))?;
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let _ = std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700));
    }
    Ok(())
}

/// Whether `path` is a linked worktree git still knows (its `.git` file names a folder that is
/// there).
fn is_worktree(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path.join(".git")) else {
        return false;
    };
    text.trim()
        .strip_prefix("gitdir:")
        .is_some_and(|dir| Path::new(dir.trim()).join("HEAD").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_worktrees_are_known_by_their_path() {
        let cases: &[(&str, bool)] = &[
            ("/home/u/.cache/checkouts/0123456789abcdef/app", true),
            ("/c/checkouts/ffffffffffffffff/my repo", true),
            ("/home/u/.cache/checkouts/0123456789abcde/app", false),
            ("/home/u/.cache/checkouts/0123456789abcdeg/app", false),
            ("/home/u/.cache/other/0123456789abcdef/app", false),
            ("/home/u/src/app", false),
            ("app", false),
        ];
        for (path, want) in cases {
            assert_eq!(is_kept_path(Path::new(path)), *want, "{path}");
        }
    }

    #[test]
    fn the_kept_home_names_no_goal_nor_run() {
        let home = kept_home(Path::new("/work/some/repo"));
        let text = home.to_string_lossy().to_lowercase();
        let tail: String = text.rsplitn(3, '/').take(2).collect::<Vec<_>>().join("/");
        for word in ["goal", "red", ".git"] {
            assert!(!tail.contains(word), "{text}");
        }
        assert!(is_kept_path(&home.join("repo")), "{text}");
    }
}
