//! Test-surface changes per commit: the weakening findings of each commit's own diff.

use std::path::Path;

use crate::error::Result;
use crate::repo::{Oid, Repo};
use crate::surface::Surface;
use crate::surface::weaken::{self, FileChange, Finding};

/// Whether a Rust file may hold test items at all (a cheap look before parsing it).
fn may_hold_tests(text: &str) -> bool {
    ["test", "bench", "quickcheck"]
        .iter()
        .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
}

/// The weakening findings of one commit's change (`from` → `to`, outside the goal folder): only
/// the test-surface files it changed are read and parsed, so a commit that touches no test costs
/// one tree diff.
pub fn commit_findings(
    repo: &Repo,
    surface: &Surface,
    from: Option<Oid>,
    to: Oid,
    goal_dir: &Path,
    cases: &mut Cases,
) -> Result<Vec<Finding>> {
    let change = Change {
        repo,
        surface,
        from,
    };
    let mut changes = Vec::new();
    let mut code = Vec::new();
    let mut out = Vec::new();
    for (path, old, new) in repo.changed_files(from, to, goal_dir)? {
        let role = surface.classify(&path);
        if matches!(
            role,
            crate::surface::Role::NotTest | crate::surface::Role::RustSource
        ) {
            // Read once, for code that detects its tests and for special cases.
            if let Some(file) = code_change(repo, &path, old, new)? {
                let _ = weaken::test_detected::detected(
                    &path,
                    file.base.as_deref(),
                    file.last.as_deref(),
                    true,
                    &mut out,
                );
                code.push(file);
            }
        } else if matches!(
            role,
            crate::surface::Role::Test | crate::surface::Role::WholeConfig
        ) {
            // Tests and conftests, as `goal done` reads them: only their conditions that read a
            // path of the run.
            detections(repo, &path, old, new, false, &mut out)?;
        }
        if !role.is_surface() {
            continue;
        }
        // A test file in a language parsed here: its tests are read once per blob (the next
        // commit that changes it has this version as its base).
        if matches!(
            role,
            crate::surface::Role::Test | crate::surface::Role::RustSource
        ) && !path.ends_with("conftest.py")
            && let Some(language) = weaken::Language::of(&path)
        {
            change.parsed_findings(&path, old, new, language, cases, &mut out)?;
            continue;
        }
        if let Some(file) = change.text_change(path, old, new, role)? {
            changes.push(file);
        }
    }
    if !changes.is_empty() {
        out.extend(change.text_findings(&changes, cases));
    }
    out.extend(crate::surface::red::special_cased(
        repo, to, surface, &code,
    )?);
    out.sort_by(|a, b| (&a.file, a.line, a.kind, &a.test).cmp(&(&b.file, b.line, b.kind, &b.test)));
    out.dedup();
    Ok(out)
}

/// One commit's change, as its files are read against it.
struct Change<'a> {
    repo: &'a Repo,
    surface: &'a Surface,
    /// The commit's parent tree (None: a root commit), where imports are looked up elsewhere.
    from: Option<Oid>,
}

impl Change<'_> {
    /// The findings of a test file in a language parsed here (`old` → `new`): its tests
    /// compared, and the imports its tests lean on redirected (unless it is a Rust source file
    /// with no test on either side).
    fn parsed_findings(
        &self,
        path: &str,
        old: Option<Oid>,
        new: Option<Oid>,
        language: weaken::Language,
        cases: &mut Cases,
        out: &mut Vec<Finding>,
    ) -> Result<()> {
        let repo = self.repo;
        let (base, last) = (
            cases.of(repo, old, language)?,
            cases.of(repo, new, language)?,
        );
        // A Rust source file with no test on either side imports nothing for a test (most
        // commits to a crate): its imports are not parsed.
        let testless = language == weaken::Language::Rust
            && base.as_ref().is_some_and(|b| b.is_empty())
            && last.as_ref().is_some_and(|l| l.is_empty());
        if let (Some(base), Some(last)) = (base, last) {
            weaken::compare(path, &base, &last, out);
        }
        if !testless {
            self.import_redirects(path, old, new, language, cases, out)?;
        }
        Ok(())
    }

    /// The `import-redirected` findings of a test file whose language has an import family:
    /// names its new version imports from elsewhere than its old one did.
    fn import_redirects(
        &self,
        path: &str,
        old: Option<Oid>,
        new: Option<Oid>,
        language: weaken::Language,
        cases: &mut Cases,
        out: &mut Vec<Finding>,
    ) -> Result<()> {
        let Some(family) = language.family() else {
            return Ok(());
        };
        let repo = self.repo;
        let last = cases.imports.of(repo, new, path, language)?;
        if last.bindings.is_empty() {
            return Ok(());
        }
        let base = cases.imports.of(repo, old, path, language)?;
        let mut elsewhere = self.from.map(|tree| {
            crate::surface::red::TreeImports::new(repo, tree, self.surface, &mut cases.imports)
        });
        weaken::imports::redirects(
            path,
            &base,
            &last,
            &mut |name| {
                elsewhere
                    .as_mut()
                    .map(|e| e.sources(family, name))
                    .unwrap_or_default()
            },
            out,
        );
        Ok(())
    }

    /// A test-surface file read as text for the weakening checks (`old` → `new`); None for a
    /// Rust source file that may hold no test on either side.
    fn text_change(
        &self,
        path: String,
        old: Option<Oid>,
        new: Option<Oid>,
        role: crate::surface::Role,
    ) -> Result<Option<FileChange>> {
        let read = |id: Option<Oid>| -> Result<Option<String>> {
            id.map(|id| {
                self.repo
                    .blob_bytes(id)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .transpose()
        };
        let (base, last) = (read(old)?, read(new)?);
        if role == crate::surface::Role::RustSource
            && !base.as_deref().is_some_and(may_hold_tests)
            && !last.as_deref().is_some_and(may_hold_tests)
        {
            return Ok(None);
        }
        Ok(Some(FileChange { path, base, last }))
    }

    /// The weakening findings of the files read as text, imports looked up in the parent tree.
    fn text_findings(&self, changes: &[FileChange], cases: &mut Cases) -> Vec<Finding> {
        let mut elsewhere = self.from.map(|tree| {
            crate::surface::red::TreeImports::new(self.repo, tree, self.surface, &mut cases.imports)
        });
        let found = weaken::findings_with(self.surface, changes, &mut |family, name| {
            elsewhere
                .as_mut()
                .map(|e| e.sources(family, name))
                .unwrap_or_default()
        });
        found.findings
    }
}

/// The `test-detected`/`test-aware` findings of a file a commit changed (`old` → `new`; `code`:
/// a code file, else a test file or a conftest), on the lines it added; a file that does not
/// parse detects nothing.
fn detections(
    repo: &Repo,
    path: &str,
    old: Option<Oid>,
    new: Option<Oid>,
    code: bool,
    out: &mut Vec<Finding>,
) -> Result<()> {
    let (Some(new), Some(_)) = (new, weaken::Language::of(path)) else {
        return Ok(());
    };
    let last = String::from_utf8_lossy(&repo.blob_bytes(new)?).into_owned();
    let base = old
        .map(|id| repo.blob_bytes(id))
        .transpose()?
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let _ = weaken::test_detected::detected(path, base.as_deref(), Some(&last), code, out);
    Ok(())
}

/// A code file a commit changed, as text, for `special-cased-input` (None: not a language the
/// findings read, or removed).
fn code_change(
    repo: &Repo,
    path: &str,
    old: Option<Oid>,
    new: Option<Oid>,
) -> Result<Option<FileChange>> {
    let (Some(new), Some(_)) = (new, weaken::Language::of(path)) else {
        return Ok(None);
    };
    let read = |id: Oid| -> Result<String> {
        Ok(String::from_utf8_lossy(&repo.blob_bytes(id)?).into_owned())
    };
    Ok(Some(FileChange {
        path: path.to_string(),
        base: old.map(read).transpose()?,
        last: Some(read(new)?),
    }))
}

/// The test cases of recently read blobs, for [`commit_findings`]: each version of a test file is
/// parsed once as one commit's result and the next one's base. Kept small: cleared when full.
#[derive(Default)]
pub struct Cases {
    tests: std::collections::HashMap<Oid, Option<std::rc::Rc<Vec<weaken::TestCase>>>>,
    /// What each version of a test file imports, for `import-redirected`.
    imports: crate::surface::red::ImportCache,
}

impl Cases {
    /// The test cases of blob `id` (None: the file is absent, an empty list); None when the blob
    /// does not parse (its findings are unknown) or may hold no test (a Rust file without one).
    fn of(
        &mut self,
        repo: &Repo,
        id: Option<Oid>,
        language: weaken::Language,
    ) -> Result<Option<std::rc::Rc<Vec<weaken::TestCase>>>> {
        let Some(id) = id else {
            return Ok(Some(Default::default()));
        };
        if let Some(found) = self.tests.get(&id) {
            return Ok(found.clone());
        }
        let text = String::from_utf8_lossy(&repo.blob_bytes(id)?).into_owned();
        let parsed = if language == weaken::Language::Rust && !may_hold_tests(&text) {
            Some(Default::default())
        } else {
            language.tests(&text).ok().map(std::rc::Rc::new)
        };
        if self.tests.len() >= 256 {
            self.tests.clear();
        }
        self.tests.insert(id, parsed.clone());
        Ok(parsed)
    }
}
