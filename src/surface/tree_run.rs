//! Running a pin on another tree than the working one: the red tree (the goal's base code with
//! the current tests laid over it), the base tree itself, or the final tree clean (tracked files
//! only), in the working tree's kept worktree (see [`crate::repo::KeptWorktree`]: reset to the
//! tree, reused from run to run) or, for the audit, in a temporary one. The working tree is never
//! written: its ignored dependency folders (`node_modules`, virtualenvs, `vendor/`) are linked
//! into the run's worktree, and a cargo build there uses the worktree's own `target/` (overriding
//! `CARGO_TARGET_DIR` and `build.target-dir` where the user sets them), seeded on first use from
//! the working target folder by hard links (dependencies only: the goal's own crates are built
//! there afresh), so that a red run does not rebuild the dependencies from scratch.

use std::path::{Path, PathBuf};

use super::Surface;
use super::judge::RedTarget;
use super::red::{RedTree, red_tree_skipping};
use crate::child;
use crate::error::Result;
use crate::repo::{KeptWorktree, Oid, Repo, TempWorktree};
use crate::summary::{self, TestCounts};
use crate::test_names::{self as names, TestNames};

/// Dependency folders of the working tree a red run sees (linked when the tree lacks them).
pub const DEPENDENCY_FOLDERS: &[&str] = &["node_modules", ".venv", "venv", "vendor"];

/// The red tree of `work` (a tree id, goal folder included or not) over the base commit `base`
/// (None: a goal started on an unborn branch, whose base tree is empty), and what the witness
/// rule compares (`goal_dir` is left out of the compared tree), under the goal's test `surface`.
pub fn red_target(
    repo: &Repo,
    base: Option<Oid>,
    work: Oid,
    goal_dir: &Path,
    surface: &Surface,
) -> Result<(RedTree, RedTarget)> {
    let base_tree = match base {
        Some(b) => repo.commit_info(b)?.tree,
        None => repo.empty_tree()?,
    };
    let goal = goal_dir.to_string_lossy().trim_end_matches('/').to_string();
    let in_goal =
        |p: &str| !goal.is_empty() && p.starts_with(&goal) && p[goal.len()..].starts_with('/');
    let red = red_tree_skipping(repo, base_tree, work, surface, &in_goal)?;
    let target = RedTarget {
        base: base.map(|b| b.to_string()).unwrap_or_default(),
        tree: repo.tree_without(red.tree, goal_dir)?.to_string(),
        tests: red.tests.to_string(),
        trusted: red.untrusted.is_empty(),
    };
    Ok((red, target))
}

/// What one run in a temporary worktree gave.
#[derive(Debug, Clone)]
pub struct TreeRun {
    pub exit_code: i32,
    pub output: Vec<u8>,
    pub duration_ms: u64,
    pub tests: Option<TestCounts>,
    pub names: TestNames,
    /// A path the command names that exists in the working tree but not in the run's tree.
    pub path_missing: Option<String>,
    /// The files whose test suite failed to load (a type or import error), relative to the tree's
    /// root.
    pub failed_to_load: Vec<String>,
    /// The command as it ran, when goal added to it so that its runner names each test.
    pub ran: Vec<String>,
}

/// Where to run, and with what around it.
pub struct TreeRunOptions<'a> {
    /// The working tree: dependency folders and the cargo target folder come from it.
    pub work_root: &'a Path,
    /// The repository's common git folder (the red runs' cargo target folder lives under it).
    pub git_dir: &'a Path,
    /// Where in the tree the command runs ("" for the root).
    pub cwd: &'a str,
    /// `--junit` report patterns to read after the run.
    pub junit: &'a [String],
    /// Show the command's output as it runs (on stderr when `to_stderr`).
    pub show: bool,
    pub to_stderr: bool,
    /// Run in the working tree's kept worktree (false: a temporary one, removed afterwards).
    pub keep: bool,
    /// The command is a pin: run it with what makes its runner name each test
    /// ([`crate::naming`]); false for the mutation tools.
    pub name_tests: bool,
}

/// The worktree a run happens in: kept from run to run, or removed when dropped.
enum RunTree {
    Kept(KeptWorktree),
    Temp(TempWorktree),
}

impl RunTree {
    fn path(&self) -> &Path {
        match self {
            RunTree::Kept(k) => &k.path,
            RunTree::Temp(t) => &t.path,
        }
    }
}

/// Check `tree` out in the kept worktree (or a temporary one: `options.keep`), at `head` (a
/// commit for git's bookkeeping), and run `argv` there. A temporary worktree is gone when this
/// returns, whatever happened; an interruption is `Error::Interrupted` (nothing to record).
pub fn run_in_tree(
    repo: &Repo,
    head: Oid,
    tree: Oid,
    argv: &[String],
    options: &TreeRunOptions,
) -> Result<TreeRun> {
    let _ = repo;
    run_in_tree_at("", head, tree, argv, options)
}

/// [`run_in_tree`] in the kept worktree of `slot` (see [`KeptWorktree::open_slot`]; "" the one
/// every run uses) when `options.keep`: each slot has its own kept `target/`, so that two runs
/// at once never wait on one cargo build folder's lock.
pub fn run_in_tree_at(
    slot: &str,
    head: Oid,
    tree: Oid,
    argv: &[String],
    options: &TreeRunOptions,
) -> Result<TreeRun> {
    let step = crate::context::span(format!(
        "checkout ({})",
        if slot.is_empty() { "kept" } else { slot }
    ));
    let worktree = if options.keep {
        RunTree::Kept(KeptWorktree::open_slot(
            options.work_root,
            slot,
            head,
            tree,
        )?)
    } else {
        RunTree::Temp(TempWorktree::of_tree(options.work_root, "", head, tree)?)
    };
    let root = worktree.path().to_path_buf();
    let dir = root.join(options.cwd);
    let missing = missing_path(argv, &options.work_root.join(options.cwd), &dir);
    link_dependencies(options.work_root, &root);
    let mut env = cargo_target(options.work_root, &root);
    drop(step);
    let step = crate::context::span(format!("run `{}`", argv.join(" ")));
    let naming = if options.name_tests {
        crate::naming::naming(argv, &|k| std::env::var(k).ok())
    } else {
        crate::naming::Naming {
            argv: argv.to_vec(),
            env: Vec::new(),
        }
    };
    env.extend(naming.env.iter().cloned());
    let started = std::time::SystemTime::now();
    let clock = std::time::Instant::now();
    let (exit_code, output) = if options.show {
        child::run_teed_env(&naming.argv, &dir, options.to_stderr, &env)?
    } else {
        child::run_captured_env(&naming.argv, &dir, &env)?
    };
    let duration_ms = clock.elapsed().as_millis() as u64;
    drop(step);
    let text = String::from_utf8_lossy(&output);
    let mut tests = summary::recognise_run(argv, &text);
    let mut found = names::from_output(&text);
    if !options.junit.is_empty() {
        let (counts, junit_names) = read_junit(options.junit, &dir, started);
        tests = Some(counts);
        if let Some(n) = junit_names {
            found = n;
        }
    }
    let failed_to_load = names::suites_failed_to_run(&text)
        .into_iter()
        .map(|p| tree_relative(&p, &root, options.cwd))
        .collect();
    drop(worktree);
    Ok(TreeRun {
        exit_code,
        output,
        duration_ms,
        tests,
        names: found,
        path_missing: missing,
        failed_to_load,
        ran: naming.shown(argv),
    })
}

/// Whether what a run of the working tree at `work_root`'s pins builds is kept by the run's own
/// tree: a cargo project (its `target/`, kept with the worktree) and a Go module (Go's build
/// cache is shared, but keys each compiled package by the folder it was built in, so a second
/// worktree compiles the module's packages afresh). Such runs are made one after the other in
/// the one kept worktree, where each rebuilds only what changed since the one before.
pub fn builds_in_tree(work_root: &Path) -> bool {
    work_root.join("Cargo.toml").is_file() || work_root.join("go.mod").is_file()
}

/// A cargo project's run in the tree at `root` builds into the tree's own kept `target/` (seeded
/// from the working one's the first time): the variable that says so when the user set one.
fn cargo_target(work_root: &Path, root: &Path) -> Vec<(String, String)> {
    let mut env = Vec::new();
    if work_root.join("Cargo.toml").is_file() {
        let user = user_target_dir(work_root);
        let own = root.join("target");
        if !own.exists() {
            let working = user.clone().unwrap_or_else(|| work_root.join("target"));
            let _step = crate::context::span("seed target/");
            seed_target(work_root, &working, &own);
        }
        if user.is_some() {
            env.push((
                "CARGO_TARGET_DIR".into(),
                own.to_string_lossy().into_owned(),
            ));
        }
    }
    env
}

/// A path a runner printed (absolute in the run's tree, or relative to where it ran), relative to
/// the tree's root. Pure.
fn tree_relative(printed: &str, root: &Path, cwd: &str) -> String {
    let root = root.to_string_lossy();
    match printed.strip_prefix(root.as_ref()) {
        Some(rest) => rest.trim_start_matches('/').to_string(),
        None if cwd.is_empty() => printed.to_string(),
        None => format!("{}/{printed}", cwd.trim_end_matches('/')),
    }
}

/// The counts (and names) of the JUnit reports a run wrote; zero tests when none was written.
pub fn read_junit(
    patterns: &[String],
    dir: &Path,
    started: std::time::SystemTime,
) -> (TestCounts, Option<TestNames>) {
    match crate::surface::junit_reports::read(patterns, dir, started) {
        Ok((counts, files)) => {
            let mut all = TestNames::default();
            for file in files {
                if let Ok(bytes) = std::fs::read(&file)
                    && let Ok(n) = names::from_junit(&bytes)
                {
                    all.names.extend(n.names);
                    all.truncated |= n.truncated;
                }
            }
            (counts, (!all.names.is_empty()).then_some(all))
        }
        Err(_) => (TestCounts::default(), None),
    }
}

/// The first word of `argv` (after the program) that names a path of the working folder `work`
/// that the run's folder `there` lacks (`tests/test_new.py` of a pin, when the red tree has no
/// such file, is no red: nothing ran).
fn missing_path(argv: &[String], work: &Path, there: &Path) -> Option<String> {
    argv.iter().skip(1).find_map(|word| {
        let path = word.split("::").next().unwrap_or(word);
        if path.starts_with('-') || path.is_empty() || !(path.contains('/') || path.contains('.')) {
            return None;
        }
        let relative = Path::new(path);
        if relative.is_absolute() {
            return None;
        }
        (work.join(relative).exists() && !there.join(relative).exists()).then(|| path.to_string())
    })
}

/// Link the working tree's ignored dependency folders into the red worktree where it has none.
fn link_dependencies(work_root: &Path, there: &Path) {
    for name in DEPENDENCY_FOLDERS {
        let source = work_root.join(name);
        let link = there.join(name);
        if source.is_dir() && !link.exists() {
            let _ = std::os::unix::fs::symlink(&source, &link);
        }
    }
}

/// Seed a run's target folder `dir` from the working target folder `working` by hard links of
/// the dependencies' artifacts (one copy where the two are on different devices), never of the
/// goal's own crates, which the run rebuilds from its tree: a hard link would let that build
/// write into the working target.
fn seed_target(work_root: &Path, working: &Path, dir: &Path) {
    let own = own_crates(work_root);
    if working.is_dir() {
        seed(working, dir, &own, 0);
    }
    let _ = std::fs::create_dir_all(dir);
}

/// The cargo target folder the user sets for the working tree, if any: `CARGO_TARGET_DIR`,
/// `CARGO_BUILD_TARGET_DIR`, or `build.target-dir` in a `.cargo/config.toml` of the working
/// tree's folders or of `$CARGO_HOME` (a relative one is relative to the folder holding
/// `.cargo`). None: cargo's default, `target/` beside the workspace.
fn user_target_dir(work_root: &Path) -> Option<PathBuf> {
    let absolute = |p: PathBuf, base: &Path| if p.is_absolute() { p } else { base.join(p) };
    for var in ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return Some(absolute(PathBuf::from(v), work_root));
        }
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let mut configs: Vec<(PathBuf, PathBuf)> = work_root
        .ancestors()
        .flat_map(|d| {
            ["config.toml", "config"].map(|n| (d.join(".cargo").join(n), d.to_path_buf()))
        })
        .collect();
    if let Some(home) = cargo_home {
        for n in ["config.toml", "config"] {
            configs.push((home.join(n), home.parent().unwrap_or(&home).to_path_buf()));
        }
    }
    configs.into_iter().find_map(|(file, base)| {
        let text = std::fs::read_to_string(&file).ok()?;
        let doc = text.parse::<toml_edit::DocumentMut>().ok()?;
        let dir = doc.get("build")?.get("target-dir")?.as_str()?;
        Some(absolute(PathBuf::from(dir), &base))
    })
}

/// The names (as in file names: `-` and `_` forms) of the crates of the working tree's
/// workspace: the root package and every `Cargo.toml` one folder below the root or in `crates/`.
fn own_crates(work_root: &Path) -> Vec<String> {
    let mut manifests = vec![work_root.join("Cargo.toml")];
    for parent in [work_root.to_path_buf(), work_root.join("crates")] {
        if let Ok(entries) = std::fs::read_dir(parent) {
            for e in entries.flatten() {
                let m = e.path().join("Cargo.toml");
                if m.is_file() && e.file_name() != "target" {
                    manifests.push(m);
                }
            }
        }
    }
    let mut names = Vec::new();
    for m in manifests {
        let Ok(text) = std::fs::read_to_string(&m) else {
            continue;
        };
        let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
            continue;
        };
        for key in ["package", "lib"] {
            if let Some(name) = doc
                .get(key)
                .and_then(|p| p.get("name"))
                .and_then(|n| n.as_str())
            {
                names.push(name.to_string());
                names.push(name.replace('-', "_"));
            }
        }
        if let Some(bins) = doc.get("bin").and_then(|b| b.as_array_of_tables()) {
            for bin in bins {
                if let Some(name) = bin.get("name").and_then(|n| n.as_str()) {
                    names.push(name.to_string());
                    names.push(name.replace('-', "_"));
                }
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Whether a target entry's file name belongs to one of `own` (`name-hash…`, `libname-hash…`).
fn is_own(file: &str, own: &[String]) -> bool {
    let file = file.strip_prefix("lib").map_or(file, |f| f);
    own.iter().any(|n| {
        file.strip_prefix(n.as_str())
            .is_some_and(|rest| rest.starts_with('-') || rest.starts_with('.'))
    }) || own.iter().any(|n| {
        // `lib` may also be the start of the crate's own name.
        let full = format!("lib{n}");
        file == full
    })
}

/// Hard-link `from` into `to` (folders made, files linked), leaving out the goal's own crates'
/// artifacts, `incremental/` (only the own crates use it), and the top-level uplifted binaries.
fn seed(from: &Path, to: &Path, own: &[String], depth: usize) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    let _ = std::fs::create_dir_all(to);
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_symlink() || name == "incremental" || is_own(&name, own) {
            continue;
        }
        let target = to.join(&name);
        if kind.is_dir() {
            // target/<profile>/{deps,build,.fingerprint}/…, and a triple's folder above them.
            if depth < 4 {
                seed(&e.path(), &target, own, depth + 1);
            }
        } else if depth >= 2 && !target.exists() {
            if std::fs::hard_link(e.path(), &target).is_err() {
                let _ = std::fs::copy(e.path(), &target);
            }
        } else if depth < 2 && matches!(name.as_str(), "CACHEDIR.TAG" | ".rustc_info.json") {
            let _ = std::fs::copy(e.path(), &target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_crate_artifacts_are_not_seeded() {
        let own: Vec<String> = vec!["calc".into(), "my-app".into(), "my_app".into()];
        // (file name, is one of the goal's own crates')
        let cases: &[(&str, bool)] = &[
            ("calc-1a2b3c", true),
            ("libcalc-1a2b3c.rlib", true),
            ("calc-1a2b3c.d", true),
            ("my-app-99", true),
            ("libmy_app-99.rmeta", true),
            ("calculus-1a2b", false),
            ("libserde-77.rlib", false),
            ("serde-77", false),
            ("libc-0a1b", false),
        ];
        for (file, want) in cases {
            assert_eq!(is_own(file, &own), *want, "{file}");
        }
    }

    #[test]
    fn a_named_path_missing_from_the_run_is_found() {
        let work = tempfile::tempdir().unwrap();
        let there = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(work.path().join("tests")).unwrap();
        std::fs::write(work.path().join("tests/test_new.py"), "").unwrap();
        std::fs::write(work.path().join("tests/test_old.py"), "").unwrap();
        std::fs::create_dir_all(there.path().join("tests")).unwrap();
        std::fs::write(there.path().join("tests/test_old.py"), "").unwrap();
        let argv = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert_eq!(
            missing_path(
                &argv(&["pytest", "-q", "tests/test_new.py::test_a"]),
                work.path(),
                there.path()
            ),
            Some("tests/test_new.py".into())
        );
        assert_eq!(
            missing_path(
                &argv(&["pytest", "-q", "tests/test_old.py"]),
                work.path(),
                there.path()
            ),
            None
        );
        assert_eq!(
            missing_path(&argv(&["cargo", "test", "adds"]), work.path(), there.path()),
            None
        );
    }
}
