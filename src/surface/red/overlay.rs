//! The steps of building a red tree: the working Rust files read and inspected once, the test
//! surface of the working tree alone, and each changed path laid over the base as its role says.

use std::collections::{BTreeMap, BTreeSet};

use super::{Trees, Untrusted, join, may_hold_tests, module_dir, take, upsert};
use crate::error::Result;
use crate::repo::{Repo, TreeChange, TreeFile};
use crate::surface::rust::{Inspection, RustParseError, has_test_items, inspect, red_rust_keeping};
use crate::surface::{PartialConfig, Role, Surface, test_config};

/// The working tree's Rust files that may hold tests, each read and parsed once.
pub(super) struct RustWork<'t> {
    /// Their texts.
    texts: BTreeMap<&'t str, String>,
    /// Those that parse, with what they hold.
    inspected: BTreeMap<&'t str, Inspection>,
    /// Those that do not parse, with why.
    parse_errors: BTreeMap<&'t str, RustParseError>,
    /// The files a `#[cfg(test)] mod name;` reaches: test files whole.
    pub(super) whole_tests: BTreeSet<String>,
    /// The working files holding test items (test files whole among them).
    holding: BTreeSet<String>,
}

impl<'t> RustWork<'t> {
    /// Read the working tree's Rust source files that may hold tests, and inspect each: which
    /// are test files whole, which hold test items.
    pub(super) fn read(repo: &Repo, trees: &'t Trees, surface: &Surface) -> Result<RustWork<'t>> {
        let mut texts: BTreeMap<&str, String> = BTreeMap::new();
        for (path, file) in &trees.work {
            if surface.classify(path) == Role::RustSource {
                let text = trees.text(repo, Some(file))?.unwrap_or_default();
                if may_hold_tests(&text) {
                    texts.insert(path, text);
                }
            }
        }
        // One parse per working Rust file that may hold tests.
        let mut inspected: BTreeMap<&str, Inspection> = BTreeMap::new();
        let mut parse_errors: BTreeMap<&str, RustParseError> = BTreeMap::new();
        for (path, text) in &texts {
            match inspect(text) {
                Ok(i) => {
                    inspected.insert(path, i);
                }
                Err(e) => {
                    parse_errors.insert(path, e);
                }
            }
        }
        let whole_tests = whole_test_files(&inspected);
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
        Ok(RustWork {
            texts,
            inspected,
            parse_errors,
            whole_tests,
            holding,
        })
    }

    /// Whether module `name`, declared in the Rust file `parent`, reaches a file holding test
    /// items.
    fn reaches(&self, parent: &str, name: &str) -> bool {
        let dir = join(&module_dir(parent), name);
        self.holding
            .iter()
            .any(|t| *t == format!("{dir}.rs") || t.starts_with(&format!("{dir}/")))
    }
}

/// The files the inspected files' `#[cfg(test)] mod name;` declarations may point to (both
/// `name.rs` and `name/mod.rs`).
fn whole_test_files(inspected: &BTreeMap<&str, Inspection>) -> BTreeSet<String> {
    let mut whole_tests: BTreeSet<String> = BTreeSet::new();
    for (path, found) in inspected {
        let dir = module_dir(path);
        for m in &found.test_modules {
            whole_tests.insert(join(&dir, &format!("{m}.rs")));
            whole_tests.insert(join(&dir, &format!("{m}/mod.rs")));
        }
    }
    whole_tests
}

/// The test surface of the working tree alone: test files and whole configuration files as they
/// are, a Rust file's test items only, a partial configuration file's test parts only (blobs
/// written for the last two).
pub(super) fn test_entries(
    repo: &Repo,
    trees: &Trees,
    rust: &RustWork,
    role_of: &dyn Fn(&str) -> Role,
) -> Result<Vec<TreeChange>> {
    let mut test_entries: Vec<TreeChange> = Vec::new();
    for (path, file) in &trees.work {
        let role = role_of(path);
        let whole = rust.whole_tests.contains(path.as_str());
        match role {
            Role::Test | Role::WholeConfig => test_entries.push(upsert(path, file.id, file.mode)),
            Role::RustSource if whole => test_entries.push(upsert(path, file.id, file.mode)),
            Role::RustSource => {
                if let Some(found) = rust.inspected.get(path.as_str())
                    && found.has_tests
                {
                    let tests = found.tests_only.as_bytes();
                    test_entries.push(upsert(path, repo.write_blob(tests)?, file.mode));
                }
            }
            Role::PartialConfig(kind) => {
                let text = trees.text(repo, Some(file))?.unwrap_or_default();
                if let Ok(tests) = test_config::splice(kind, "", &text)
                    && !tests.trim().is_empty()
                    && tests.trim() != "{}"
                {
                    test_entries.push(upsert(path, repo.write_blob(tests.as_bytes())?, file.mode));
                }
            }
            Role::NotTest => {}
        }
    }
    Ok(test_entries)
}

/// The changes that make the red tree of the base, and why it may not be trusted.
#[derive(Default)]
pub(super) struct RedChanges {
    pub(super) changes: Vec<TreeChange>,
    pub(super) untrusted: Vec<Untrusted>,
}

impl RedChanges {
    /// A changed partial configuration file: new in the goal, taken whole; deleted by it, left
    /// as on the base; else the base with the working test parts spliced in (taken whole, and
    /// untrusted, when it does not parse).
    pub(super) fn partial_config(
        &mut self,
        repo: &Repo,
        trees: &Trees,
        path: &str,
        kind: PartialConfig,
        (base_file, work_file): (Option<&TreeFile>, Option<&TreeFile>),
    ) -> Result<()> {
        let (Some(b), Some(w)) = (base_file, work_file) else {
            if let (None, Some(w)) = (base_file, work_file) {
                self.changes.push(upsert(path, w.id, w.mode));
            }
            return Ok(());
        };
        let base_text = trees.text(repo, Some(b))?.unwrap_or_default();
        let work_text = trees.text(repo, Some(w))?.unwrap_or_default();
        match test_config::splice(kind, &base_text, &work_text) {
            Ok(red) if red == base_text => {}
            Ok(red) => self
                .changes
                .push(upsert(path, repo.write_blob(red.as_bytes())?, b.mode)),
            Err(e) => {
                self.untrusted.push(Untrusted {
                    path: path.to_string(),
                    reason: e.to_string(),
                });
                self.changes.push(upsert(path, w.id, w.mode));
            }
        }
        Ok(())
    }

    /// A changed Rust source file (not a test file whole): the base's code with the working
    /// tests and the `mod` declarations that reach tests, left as on the base when neither side
    /// may hold tests or declare a module; taken whole, and untrusted, when a side does not parse.
    pub(super) fn rust_source(
        &mut self,
        repo: &Repo,
        trees: &Trees,
        rust: &RustWork,
        path: &str,
        (base_file, work_file): (Option<&TreeFile>, Option<&TreeFile>),
    ) -> Result<()> {
        let work_text = match rust.texts.get(path) {
            Some(t) => Some(t.clone()),
            None => trees.text(repo, work_file)?,
        };
        let base_text = trees.text(repo, base_file)?;
        let relevant = |t: &Option<String>| {
            t.as_deref()
                .is_some_and(|t| may_hold_tests(t) || t.contains("mod "))
        };
        if !relevant(&base_text) && !relevant(&work_text) {
            return Ok(());
        }
        let keep = |name: &str| rust.reaches(path, name);
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
                self.changes
                    .push(upsert(path, repo.write_blob(red.as_bytes())?, mode));
            }
            Err(e) => {
                let work_fails = rust.parse_errors.contains_key(path)
                    || work_text
                        .as_deref()
                        .is_some_and(|t| has_test_items(t).is_err());
                let which = if work_fails { "" } else { " on the base" };
                self.untrusted.push(Untrusted {
                    path: path.to_string(),
                    reason: format!("{path} does not parse as Rust{which}: {e}"),
                });
                self.changes.push(take(path, work_file));
            }
        }
        Ok(())
    }
}
