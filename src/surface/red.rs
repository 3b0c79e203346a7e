//! The red tree: the goal's base tree with the working tree's test surface laid over it (test files
//! and whole configuration files from the working tree, test tables and keys spliced into the base
//! configuration, Rust files with the base's code and the working tests), written to git's object
//! database, with the tree of the test surface alone.

use std::collections::{BTreeMap, BTreeSet};

use super::weaken::imports::{Family, Imports};
use super::weaken::{FileChange, Findings, Language};
use super::{Role, Surface};
use crate::error::Result;
use crate::repo::{Oid, Repo, TreeChange, TreeFile};

mod overlay;
use overlay::{RedChanges, RustWork, test_entries};

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
    /// The paths whose blob or mode differs between the base and the working tree.
    fn changed(&self) -> BTreeSet<&str> {
        self.base
            .keys()
            .chain(self.work.keys())
            .filter(|p| {
                self.base.get(*p).map(|f| (f.id, f.mode))
                    != self.work.get(*p).map(|f| (f.id, f.mode))
            })
            .map(String::as_str)
            .collect()
    }

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
    let changed = trees.changed();
    let depends = depends_surface(repo, &trees, &changed, surface, skip)?;
    let role_of = |path: &str| {
        if depends.contains(path) {
            Role::Test
        } else {
            surface.classify(path)
        }
    };
    let rust = RustWork::read(repo, &trees, surface)?;
    let test_entries = test_entries(repo, &trees, &rust, &role_of)?;

    // The red tree: the base, with each changed path of the surface as the rules say. A file the
    // goal did not change keeps the base's bytes: its `mod` declarations are the base's.
    let mut red = RedChanges::default();
    for path in &changed {
        let path = *path;
        let role = role_of(path);
        let files = (trees.base.get(path), trees.work.get(path));
        let whole = role == Role::RustSource && rust.whole_tests.contains(path);
        match role {
            Role::Test | Role::WholeConfig => red.changes.push(take(path, files.1)),
            Role::RustSource if whole => red.changes.push(take(path, files.1)),
            Role::PartialConfig(kind) => red.partial_config(repo, &trees, path, kind, files)?,
            Role::RustSource => red.rust_source(repo, &trees, &rust, path, files)?,
            Role::NotTest => {}
        }
    }
    let tree = repo.update_tree(base, &red.changes)?;
    let empty = repo.empty_tree()?;
    let tests = repo.update_tree(empty, &test_entries)?;
    Ok(RedTree {
        tree,
        tests,
        untrusted: red.untrusted,
    })
}

/// The old-exam tree: the final tree `last` with the base's test surface laid over it, the red
/// tree's rules in the mirror direction (test files, configuration and the test items of Rust files
/// as the base had them, the tests the goal added left out, the test data the goal changed put
/// back), `skip` naming the goal folder.
pub fn old_exam_tree(
    repo: &Repo,
    base: Oid,
    last: Oid,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<RedTree> {
    red_tree_skipping(repo, last, base, surface, skip)
}

/// The support tree: the final tree `last` with every file that chooses what the tests run
/// without being a test ([`super::is_support`]) as the base had it, and the Go test files the goal
/// added that patch the package from `init` or `TestMain` left out. None when the goal changed no
/// such file (the support exam does not run).
pub fn support_tree(
    repo: &Repo,
    base: Oid,
    last: Oid,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<Option<Oid>> {
    let trees = Trees {
        base: index(repo.tree_files(base)?),
        work: index(repo.tree_files(last)?),
    };
    let mut changes = Vec::new();
    for path in trees.changed() {
        if skip(path) {
            continue;
        }
        let (b, l) = (trees.base.get(path), trees.work.get(path));
        let patches = b.is_none()
            && path.ends_with("_test.go")
            && trees.text(repo, l)?.is_some_and(|t| go_patches(&t));
        if super::is_support(surface, path) || patches {
            changes.push(take(path, b));
        }
    }
    if changes.is_empty() {
        return Ok(None);
    }
    Ok(Some(repo.update_tree(last, &changes)?))
}

/// The final tree `last` with the goal's test files as a red run saw them (`seen`: the tree of
/// that run's tests, or a whole tree it ran on): what the goal first tested, run on the final
/// code. Only test files are taken (a Rust source is code too, and configuration chooses the
/// exam); `skip` names the goal folder. None when no test file differs.
pub fn seen_again_tree(
    repo: &Repo,
    seen: Oid,
    last: Oid,
    surface: &Surface,
    skip: &dyn Fn(&str) -> bool,
) -> Result<Option<Oid>> {
    let (seen, work) = (index(repo.tree_files(seen)?), index(repo.tree_files(last)?));
    let mut changes = Vec::new();
    for (path, file) in &seen {
        if skip(path) || surface.classify(path) != Role::Test {
            continue;
        }
        if work
            .get(path)
            .is_none_or(|w| w.id != file.id || w.mode != file.mode)
        {
            changes.push(upsert(path, file.id, file.mode));
        }
    }
    if changes.is_empty() {
        return Ok(None);
    }
    Ok(Some(repo.update_tree(last, &changes)?))
}

/// Whether a Go test file runs code before the tests do: an `init` function or a `TestMain`.
fn go_patches(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("func init()") || l.starts_with("func TestMain(")
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
    use super::depends::{is_source, test_helpers};
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
    if !python.is_empty() {
        let mut source = TreeSource {
            repo,
            files: &trees.work,
            skip,
        };
        out.extend(test_helpers(&mut source, &tests, &python));
    }
    if data.is_empty() {
        return Ok(out);
    }
    let named = test_data(repo, trees, &data, (&tests, &out), skip)?;
    out.extend(named.into_iter().map(str::to_string));
    Ok(out)
}

/// The files of `data` a test file or a test helper (`tests`, `helpers`) names and no other code
/// of the working tree does.
fn test_data<'d>(
    repo: &Repo,
    trees: &Trees,
    data: &[&'d str],
    (tests, helpers): (&BTreeSet<String>, &BTreeSet<String>),
    skip: &dyn Fn(&str) -> bool,
) -> Result<Vec<&'d str>> {
    use super::depends::{is_source, names_path};
    let read = |path: &str| -> Result<Vec<u8>> {
        match trees.work.get(path) {
            Some(f) => repo.blob_bytes(f.id),
            None => Ok(Vec::new()),
        }
    };
    let mut named: Vec<&str> = Vec::new();
    for test in tests.iter().chain(helpers.iter()) {
        if named.len() == data.len() {
            break;
        }
        let text = read(test)?;
        for d in data {
            if !named.contains(d) && names_path(&text, d) {
                named.push(d);
            }
        }
    }
    if named.is_empty() {
        return Ok(named);
    }
    // Named by code too: the code's data, not the tests'.
    for (path, _) in trees
        .work
        .iter()
        .filter(|(p, _)| is_source(p) && !tests.contains(*p) && !helpers.contains(*p) && !skip(p))
    {
        let text = read(path)?;
        named.retain(|d| !names_path(&text, d));
        if named.is_empty() {
            break;
        }
    }
    Ok(named)
}

/// The working tree's Python files, read from git's object database for
/// [`super::depends::test_helpers`] (the paths `skip` names left out).
struct TreeSource<'a> {
    repo: &'a Repo,
    files: &'a BTreeMap<String, TreeFile>,
    skip: &'a dyn Fn(&str) -> bool,
}

impl super::depends::PySource for TreeSource<'_> {
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
    let mut found = super::weaken::findings_in(surface, &changes, &code, &mut |family, name| {
        base_imports.sources(family, name)
    });
    found
        .findings
        .extend(special_cased(repo, last, surface, &code)?);
    found.findings.sort_by(|a, b| {
        (&a.file, a.line, a.kind, &a.test).cmp(&(&b.file, b.line, b.kind, &b.test))
    });
    Ok(found)
}

/// The `special-cased-input` findings of the code the goal changed (`code`), against the literals
/// of the test files of tree `last` in the same language (see
/// [`super::weaken::special_case`]). Test files are read only when the code holds a special case,
/// and parsed only when they hold the literal's text.
pub fn special_cased(
    repo: &Repo,
    last: Oid,
    surface: &Surface,
    code: &[FileChange],
) -> Result<Vec<super::weaken::Finding>> {
    use super::weaken::special_case::{self as rule, TestFile};
    let mut cases = Vec::new();
    for change in code {
        let (Some(text), Some(language)) = (&change.last, Language::of(&change.path)) else {
            continue;
        };
        let found = rule::special_cases(&change.path, change.base.as_deref(), text);
        if let Ok(found) = found
            && !found.is_empty()
        {
            cases.push((change.path.as_str(), rule::group(language), found));
        }
    }
    if cases.is_empty() {
        return Ok(Vec::new());
    }
    let mut tests: BTreeMap<u8, Vec<TestFile>> = BTreeMap::new();
    for file in repo.tree_files(last)? {
        let Some(language) = Language::of(&file.path) else {
            continue;
        };
        let group = rule::group(language);
        if !matches!(surface.classify(&file.path), Role::Test | Role::RustSource) {
            continue;
        }
        let wanted: Vec<&str> = cases
            .iter()
            .filter(|(_, g, _)| *g == group)
            .flat_map(|(_, _, found)| found.iter().map(|c| rule::needle(&c.literal)))
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let bytes = repo.blob_bytes(file.id)?;
        if bytes.len() > CODE_FILE_MAX
            || !wanted
                .iter()
                .any(|w| memchr::memmem::find(&bytes, w.as_bytes()).is_some())
        {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(literals) = rule::test_literals(&file.path, &text) {
            tests.entry(group).or_default().push((file.path, literals));
        }
    }
    let mut out = Vec::new();
    for (path, group, found) in &cases {
        let files = tests.get(group).map(Vec::as_slice).unwrap_or_default();
        out.extend(rule::findings(path, found, files));
    }
    Ok(out)
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
