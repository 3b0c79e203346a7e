//! The red tree: the goal's base tree with the working tree's test surface laid over it (test files
//! and whole configuration files from the working tree, test tables and keys spliced into the base
//! configuration, Rust files with the base's code and the working tests), written to git's object
//! database, with the tree of the test surface alone.

use std::collections::{BTreeMap, BTreeSet};

use super::rust::{Inspection, RustParseError, has_test_items, inspect, red_rust_keeping};
use super::weaken::imports::{Family, Imports};
use super::weaken::{FileChange, Findings, Language};
use super::{Role, Surface, config};
use crate::error::Result;
use crate::repo::{Oid, Repo, TreeChange, TreeFile};

/// Why a red tree may not be what it should be: its red run must then be inconclusive.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Untrusted {
    pub path: String,
    /// `src/lib.rs does not parse as Rust: line 3, column 1: expected …`.
    pub reason: String,
}

/// A red tree as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedTree {
    /// The red tree itself.
    pub tree: Oid,
    /// A tree holding only the working tree's test surface (test files, whole configuration files,
    /// the test parts of partial configuration files and the test items of Rust files), so that two
    /// red trees made with the same tests have the same `tests`.
    pub tests: Oid,
    /// Reasons the red tree is not trustworthy (a file that does not parse); empty when it is.
    pub untrusted: Vec<Untrusted>,
}

/// Whether a Rust file may hold test items at all (a cheap look before parsing it).
fn may_hold_tests(text: &str) -> bool {
    ["test", "bench", "quickcheck"]
        .iter()
        .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
}

/// The folder a Rust file's `mod name;` declarations point into (`src/lib.rs` → `src`,
/// `src/a.rs` → `src/a`, `src/a/mod.rs` → `src/a`).
fn module_dir(path: &str) -> String {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    if matches!(name, "mod.rs" | "lib.rs" | "main.rs") {
        dir.to_string()
    } else {
        path.trim_end_matches(".rs").to_string()
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

struct Trees {
    base: BTreeMap<String, TreeFile>,
    work: BTreeMap<String, TreeFile>,
}

impl Trees {
    fn text(&self, repo: &Repo, file: Option<&TreeFile>) -> Result<Option<String>> {
        match file {
            None => Ok(None),
            Some(f) => Ok(Some(
                String::from_utf8_lossy(&repo.blob_bytes(f.id)?).into_owned(),
            )),
        }
    }
}

/// Build the red tree of `work` over `base` (both tree ids) by the rules of `surface`, writing its
/// blobs and trees to the repository's object database. A file that does not parse is taken from
/// the working tree whole and named in `untrusted` (its red run must be inconclusive), never an
/// error; an error is git failing to read or write.
///
/// Rust files (outside the test globs) hold the base's non-test items and the working test items;
/// a file reached by a `#[cfg(test)] mod name;` is a test file whole; a `mod name;` the goal added is
/// kept when the module reaches a file holding test items; a file new in the goal holding no test
/// item is left out. A partial configuration file new in the goal is taken whole; one the goal
/// deleted stays as on the base.
pub fn red_tree(repo: &Repo, base: Oid, work: Oid, surface: &Surface) -> Result<RedTree> {
    red_tree_skipping(repo, base, work, surface, &|_| false)
}

/// As [`red_tree`], `skip` naming paths that are never test data nor helpers (the goal folder).
///
/// Besides the paths the surface's rules name, the red tree takes the goal's test data and test
/// helpers whole from the working tree (see [`super::depends`]).
pub fn red_tree_skipping(
    repo: &Repo,
    base: Oid,
    work: Oid,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<RedTree> {
    let trees = Trees {
        base: index(repo.tree_files(base)?),
        work: index(repo.tree_files(work)?),
    };
    let mut untrusted = Vec::new();
    let mut test_entries: Vec<TreeChange> = Vec::new();
    let mut changes: Vec<TreeChange> = Vec::new();
    let changed: BTreeSet<&str> = trees
        .base
        .keys()
        .chain(trees.work.keys())
        .filter(|p| {
            trees.base.get(*p).map(|f| (f.id, f.mode)) != trees.work.get(*p).map(|f| (f.id, f.mode))
        })
        .map(String::as_str)
        .collect();
    let depends = depends_surface(repo, &trees, &changed, surface, skip)?;
    let role_of = |path: &str| {
        if depends.contains(path) {
            Role::Test
        } else {
            surface.classify(path)
        }
    };

    // Rust: which working files are test files whole, which hold test items.
    let mut rust_texts: BTreeMap<&str, String> = BTreeMap::new();
    for (path, file) in &trees.work {
        if surface.classify(path) == Role::RustSource {
            let text = trees.text(repo, Some(file))?.unwrap_or_default();
            if may_hold_tests(&text) {
                rust_texts.insert(path, text);
            }
        }
    }
    // One parse per working Rust file that may hold tests.
    let mut inspected: BTreeMap<&str, Inspection> = BTreeMap::new();
    let mut parse_errors: BTreeMap<&str, RustParseError> = BTreeMap::new();
    for (path, text) in &rust_texts {
        match inspect(text) {
            Ok(i) => {
                inspected.insert(path, i);
            }
            Err(e) => {
                parse_errors.insert(path, e);
            }
        }
    }
    let mut whole_tests: BTreeSet<String> = BTreeSet::new();
    for (path, found) in &inspected {
        let dir = module_dir(path);
        for m in &found.test_modules {
            whole_tests.insert(join(&dir, &format!("{m}.rs")));
            whole_tests.insert(join(&dir, &format!("{m}/mod.rs")));
        }
    }
    let mut holding: BTreeSet<String> = whole_tests
        .iter()
        .filter(|p| trees.work.contains_key(*p))
        .cloned()
        .collect();
    holding.extend(
        inspected
            .iter()
            .filter(|(_, i)| i.has_tests)
            .map(|(p, _)| p.to_string()),
    );
    let reaches = |parent: &str, name: &str| {
        let dir = join(&module_dir(parent), name);
        holding
            .iter()
            .any(|t| *t == format!("{dir}.rs") || t.starts_with(&format!("{dir}/")))
    };

    // The test surface of the working tree alone.
    for (path, file) in &trees.work {
        let role = role_of(path);
        let whole = whole_tests.contains(path.as_str());
        match role {
            Role::Test | Role::WholeConfig => test_entries.push(upsert(path, file.id, file.mode)),
            Role::RustSource if whole => test_entries.push(upsert(path, file.id, file.mode)),
            Role::RustSource => {
                if let Some(found) = inspected.get(path.as_str())
                    && found.has_tests
                {
                    let tests = found.tests_only.as_bytes();
                    test_entries.push(upsert(path, repo.write_blob(tests)?, file.mode));
                }
            }
            Role::PartialConfig(kind) => {
                let text = trees.text(repo, Some(file))?.unwrap_or_default();
                if let Ok(tests) = config::splice(kind, "", &text)
                    && !tests.trim().is_empty()
                    && tests.trim() != "{}"
                {
                    test_entries.push(upsert(path, repo.write_blob(tests.as_bytes())?, file.mode));
                }
            }
            Role::NotTest => {}
        }
    }

    // The red tree: the base, with each changed path of the surface as the rules say. A file the
    // goal did not change keeps the base's bytes: its `mod` declarations are the base's.
    for path in &changed {
        let path = *path;
        let role = role_of(path);
        let (base_file, work_file) = (trees.base.get(path), trees.work.get(path));
        let whole = role == Role::RustSource && whole_tests.contains(path);
        match role {
            Role::Test | Role::WholeConfig => changes.push(take(path, work_file)),
            Role::RustSource if whole => changes.push(take(path, work_file)),
            Role::PartialConfig(kind) => {
                let (Some(b), Some(w)) = (base_file, work_file) else {
                    if let (None, Some(w)) = (base_file, work_file) {
                        changes.push(upsert(path, w.id, w.mode));
                    }
                    continue;
                };
                let base_text = trees.text(repo, Some(b))?.unwrap_or_default();
                let work_text = trees.text(repo, Some(w))?.unwrap_or_default();
                match config::splice(kind, &base_text, &work_text) {
                    Ok(red) if red == base_text => {}
                    Ok(red) => changes.push(upsert(path, repo.write_blob(red.as_bytes())?, b.mode)),
                    Err(e) => {
                        untrusted.push(Untrusted {
                            path: path.to_string(),
                            reason: e.to_string(),
                        });
                        changes.push(upsert(path, w.id, w.mode));
                    }
                }
            }
            Role::RustSource => {
                let work_text = match rust_texts.get(path) {
                    Some(t) => Some(t.clone()),
                    None => trees.text(repo, work_file)?,
                };
                let base_text = trees.text(repo, base_file)?;
                let relevant = |t: &Option<String>| {
                    t.as_deref()
                        .is_some_and(|t| may_hold_tests(t) || t.contains("mod "))
                };
                if !relevant(&base_text) && !relevant(&work_text) {
                    continue;
                }
                let keep = |name: &str| reaches(path, name);
                let red = red_rust_keeping(
                    base_text.as_deref(),
                    work_text.as_deref().unwrap_or(""),
                    &keep,
                );
                match red {
                    Ok(red) if Some(red.as_str()) == base_text.as_deref() => {}
                    Ok(red) if base_text.is_none() && red.trim().is_empty() => {}
                    Ok(red) => {
                        let mode = base_file.or(work_file).map_or(0o100644, |f| f.mode);
                        changes.push(upsert(path, repo.write_blob(red.as_bytes())?, mode));
                    }
                    Err(e) => {
                        let work_fails = parse_errors.contains_key(path)
                            || work_text
                                .as_deref()
                                .is_some_and(|t| has_test_items(t).is_err());
                        let which = if work_fails { "" } else { " on the base" };
                        untrusted.push(Untrusted {
                            path: path.to_string(),
                            reason: format!("{path} does not parse as Rust{which}: {e}"),
                        });
                        changes.push(take(path, work_file));
                    }
                }
            }
            Role::NotTest => {}
        }
    }
    let tree = repo.update_tree(base, &changes)?;
    let empty = repo.empty_tree()?;
    let tests = repo.update_tree(empty, &test_entries)?;
    Ok(RedTree {
        tree,
        tests,
        untrusted,
    })
}

/// The goal's test data and test helpers: paths of `changed` the working tree has that the
/// surface's rules call code (see [`super::depends`]). Reads nothing when the goal added or
/// changed no such file.
fn depends_surface(
    repo: &Repo,
    trees: &Trees,
    changed: &BTreeSet<&str>,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<BTreeSet<String>> {
    use super::depends::{PySource, is_source, names_path, test_helpers};
    let added: Vec<&str> = changed
        .iter()
        .copied()
        .filter(|p| trees.work.contains_key(*p) && surface.classify(p) == Role::NotTest && !skip(p))
        .collect();
    let data: Vec<&str> = added.iter().copied().filter(|p| !is_source(p)).collect();
    let python: BTreeSet<String> = added
        .iter()
        .filter(|p| p.ends_with(".py"))
        .map(|p| p.to_string())
        .collect();
    let mut out = BTreeSet::new();
    if data.is_empty() && python.is_empty() {
        return Ok(out);
    }
    let tests: BTreeSet<String> = trees
        .work
        .keys()
        .filter(|p| surface.classify(p) == Role::Test && !skip(p))
        .cloned()
        .collect();
    struct Source<'a> {
        repo: &'a Repo,
        files: &'a BTreeMap<String, TreeFile>,
        skip: &'a dyn Fn(&str) -> bool,
    }
    impl PySource for Source<'_> {
        fn paths(&self) -> Vec<String> {
            let py = self
                .files
                .keys()
                .filter(|p| p.ends_with(".py") && !(self.skip)(p));
            py.cloned().collect()
        }
        fn text(&mut self, path: &str) -> Option<String> {
            let bytes = self.repo.blob_bytes(self.files.get(path)?.id).ok()?;
            Some(String::from_utf8_lossy(&bytes).into_owned())
        }
    }
    if !python.is_empty() {
        let mut source = Source {
            repo,
            files: &trees.work,
            skip,
        };
        out.extend(test_helpers(&mut source, &tests, &python));
    }
    if data.is_empty() {
        return Ok(out);
    }
    let read = |path: &str| -> Result<Vec<u8>> {
        match trees.work.get(path) {
            Some(f) => repo.blob_bytes(f.id),
            None => Ok(Vec::new()),
        }
    };
    let mut named: Vec<&str> = Vec::new();
    for test in tests.iter().chain(out.iter()) {
        if named.len() == data.len() {
            break;
        }
        let text = read(test)?;
        for d in &data {
            if !named.contains(d) && names_path(&text, d) {
                named.push(d);
            }
        }
    }
    if named.is_empty() {
        return Ok(out);
    }
    // Named by code too: the code's data, not the tests'.
    for (path, _) in trees
        .work
        .iter()
        .filter(|(p, _)| is_source(p) && !tests.contains(*p) && !out.contains(*p) && !skip(p))
    {
        let text = read(path)?;
        named.retain(|d| !names_path(&text, d));
        if named.is_empty() {
            break;
        }
    }
    out.extend(named.into_iter().map(str::to_string));
    Ok(out)
}

/// The files of the test surface that differ between trees `base` and `last`, with their texts
/// (None where a side lacks the file), for [`super::weaken::findings`]. Rust source files count
/// only where a side may hold tests.
pub fn surface_changes(
    repo: &Repo,
    base: Oid,
    last: Oid,
    surface: &Surface,
) -> Result<Vec<FileChange>> {
    let (b, l) = (index(repo.tree_files(base)?), index(repo.tree_files(last)?));
    let paths: BTreeSet<&String> = b.keys().chain(l.keys()).collect();
    let mut out = Vec::new();
    for path in paths {
        let role = surface.classify(path);
        let (bf, lf) = (b.get(path), l.get(path));
        if !role.is_surface() || bf.map(|f| f.id) == lf.map(|f| f.id) {
            continue;
        }
        let read = |f: Option<&TreeFile>| -> Result<Option<String>> {
            f.map(|f| {
                repo.blob_bytes(f.id)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .transpose()
        };
        let (bt, lt) = (read(bf)?, read(lf)?);
        if role == Role::RustSource
            && !bt.as_deref().is_some_and(may_hold_tests)
            && !lt.as_deref().is_some_and(may_hold_tests)
        {
            continue;
        }
        out.push(FileChange {
            path: path.clone(),
            base: bt,
            last: lt,
        });
    }
    Ok(out)
}

/// The imports of test files already read, by blob (shared between the trees of a history).
#[derive(Default)]
pub struct ImportCache(std::collections::HashMap<(Oid, String), std::rc::Rc<Imports>>);

impl ImportCache {
    /// The imports of blob `id` at `path` (relative imports are read from its folder); None
    /// for no blob; a blob that does not parse imports nothing.
    pub fn of(
        &mut self,
        repo: &Repo,
        id: Option<Oid>,
        path: &str,
        language: Language,
    ) -> Result<std::rc::Rc<Imports>> {
        let Some(id) = id else {
            return Ok(Default::default());
        };
        let key = (id, path.to_string());
        if let Some(found) = self.0.get(&key) {
            return Ok(found.clone());
        }
        let text = String::from_utf8_lossy(&repo.blob_bytes(id)?).into_owned();
        Ok(self.insert(key, language.imports(path, &text).unwrap_or_default()))
    }

    fn insert(&mut self, key: (Oid, String), imports: Imports) -> std::rc::Rc<Imports> {
        if self.0.len() >= 4096 {
            self.0.clear();
        }
        let found = std::rc::Rc::new(imports);
        self.0.insert(key, found.clone());
        found
    }
}

/// The imports of one tree's test files, read as they are asked for: the `elsewhere` of
/// [`super::weaken::findings_with`] for a goal whose base is that tree. Only the files holding the
/// name asked for are parsed; a file that cannot be read counts as importing nothing.
pub struct TreeImports<'a> {
    repo: &'a Repo,
    tree: Oid,
    surface: &'a Surface,
    files: Option<Vec<(String, Oid, Language)>>,
    cache: &'a mut ImportCache,
}

impl<'a> TreeImports<'a> {
    pub fn new(
        repo: &'a Repo,
        tree: Oid,
        surface: &'a Surface,
        cache: &'a mut ImportCache,
    ) -> TreeImports<'a> {
        TreeImports {
            repo,
            tree,
            surface,
            files: None,
            cache,
        }
    }

    /// The sources the tree's test files of `family` import `name` from.
    pub fn sources(&mut self, family: Family, name: &str) -> BTreeSet<String> {
        if self.files.is_none() {
            let surface = self.surface;
            let files = self.repo.tree_files(self.tree).unwrap_or_default();
            self.files = Some(
                files
                    .into_iter()
                    .filter(|f| {
                        matches!(
                            surface.classify(&f.path),
                            Role::Test | Role::WholeConfig | Role::RustSource
                        )
                    })
                    .filter_map(|f| Language::of(&f.path).map(|l| (f.path, f.id, l)))
                    .filter(|(_, _, l)| l.family().is_some())
                    .collect(),
            );
        }
        let mut out = BTreeSet::new();
        for (path, id, language) in self.files.iter().flatten() {
            if language.family() != Some(family) {
                continue;
            }
            let key = (*id, path.clone());
            let imports = match self.cache.0.get(&key) {
                Some(found) => found.clone(),
                None => {
                    let Ok(bytes) = self.repo.blob_bytes(*id) else {
                        continue;
                    };
                    if memchr::memmem::find(&bytes, name.as_bytes()).is_none() {
                        continue;
                    }
                    let text = String::from_utf8_lossy(&bytes);
                    self.cache
                        .insert(key, language.imports(path, &text).unwrap_or_default())
                }
            };
            out.extend(
                imports
                    .bindings
                    .iter()
                    .filter(|b| b.name == name)
                    .map(|b| b.source.clone()),
            );
        }
        out
    }
}

/// The weakening findings of the goal's diff over the test surface from tree `base` to tree
/// `last`, leaving out the paths `skip` holds (the goal folder).
pub fn goal_findings(
    repo: &Repo,
    base: Oid,
    last: Oid,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<Findings> {
    let changes: Vec<FileChange> = surface_changes(repo, base, last, surface)?
        .into_iter()
        .filter(|c| !skip(&c.path))
        .collect();
    let code: Vec<FileChange> = code_changes(repo, base, last, surface)?
        .into_iter()
        .filter(|c| !skip(&c.path))
        .collect();
    let mut cache = ImportCache::default();
    let mut base_imports = TreeImports::new(repo, base, surface, &mut cache);
    Ok(super::weaken::findings_in(
        surface,
        &changes,
        &code,
        &mut |family, name| base_imports.sources(family, name),
    ))
}

/// The largest code file the findings read (a bigger one is generated, not written).
const CODE_FILE_MAX: usize = 512 * 1024;

/// The code files (off the test surface, and Rust sources) in a language the findings parse that
/// differ between trees `base` and `last`, with their texts: the renames and the code that
/// detects its tests are read from them.
pub fn code_changes(
    repo: &Repo,
    base: Oid,
    last: Oid,
    surface: &Surface,
) -> Result<Vec<FileChange>> {
    let (b, l) = (index(repo.tree_files(base)?), index(repo.tree_files(last)?));
    let paths: BTreeSet<&String> = b.keys().chain(l.keys()).collect();
    let mut out = Vec::new();
    for path in paths {
        let role = surface.classify(path);
        let (bf, lf) = (b.get(path), l.get(path));
        if !matches!(role, Role::NotTest | Role::RustSource)
            || Language::of(path).is_none()
            || bf.map(|f| f.id) == lf.map(|f| f.id)
        {
            continue;
        }
        let read = |f: Option<&TreeFile>| -> Result<Option<String>> {
            f.map(|f| {
                repo.blob_bytes(f.id)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .transpose()
        };
        let (bt, lt) = (read(bf)?, read(lf)?);
        if bt.as_ref().is_some_and(|t| t.len() > CODE_FILE_MAX)
            || lt.as_ref().is_some_and(|t| t.len() > CODE_FILE_MAX)
        {
            continue;
        }
        out.push(FileChange {
            path: path.clone(),
            base: bt,
            last: lt,
        });
    }
    Ok(out)
}

/// The working version of a path (its removal when the goal deleted it).
fn take(path: &str, work: Option<&TreeFile>) -> TreeChange {
    match work {
        Some(f) => upsert(path, f.id, f.mode),
        None => TreeChange::Remove {
            path: path.to_string(),
        },
    }
}

fn upsert(path: &str, id: Oid, mode: u32) -> TreeChange {
    TreeChange::Upsert {
        path: path.to_string(),
        id,
        mode,
    }
}

fn index(files: Vec<TreeFile>) -> BTreeMap<String, TreeFile> {
    files.into_iter().map(|f| (f.path.clone(), f)).collect()
}

#[cfg(test)]
#[path = "red_tests.rs"]
mod tests;
