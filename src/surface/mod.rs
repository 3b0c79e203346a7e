//! The test surface: which files and items are tests and test configuration, the red tree built
//! from them, the ways a goal can weaken its tests, and the test names runners print.
//!
//! Everything here is pure (text in, values out) except [`red`], which reads and writes git objects
//! through [`crate::repo::Repo`].

use glob::{MatchOptions, Pattern};

pub mod depends;
pub mod environment;
pub mod exam;
pub mod judge;
pub mod junit_reports;
pub mod red;
pub mod rust;
pub mod test_config;
pub mod tree_run;
pub mod weaken;

/// The paths that are tests by default (a path matching one is a test file, taken whole).
pub const DEFAULT_TEST_GLOBS: &[&str] = &[
    "tests/**",
    "test/**",
    "spec/**",
    "**/__tests__/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "**/*_test.go",
    "**/*.test.*",
    "**/*.spec.*",
    "**/*Test.java",
    "**/*Tests.cs",
];

/// Test-configuration files taken whole, by file name (in any folder).
pub const WHOLE_CONFIG_NAMES: &[&str] = &["pytest.ini", "tox.ini", "setup.cfg", "conftest.py"];

/// Test-configuration files taken whole, by file-name prefix (`jest.config.js`, `.mocharc.yml`, …).
pub const WHOLE_CONFIG_PREFIXES: &[&str] = &["jest.config.", "vitest.config.", ".mocharc."];

/// The kind of a file of which only some tables, keys or rules are test configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PartialConfig {
    /// `pyproject.toml`: the `[tool.pytest…]` tables.
    Pyproject,
    /// `package.json`: the `test` script and the `jest` key.
    PackageJson,
    /// `Cargo.toml`: `[[test]]`, `[lib] test` and `harness`.
    CargoToml,
    /// `Makefile` / `GNUmakefile` / `makefile`: the rules of targets named `test*`.
    Makefile,
    /// `justfile` / `Justfile` / `.justfile`: the recipes named `test*`.
    Justfile,
}

/// What a path is to the test surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// A test file (a default glob or `goal.tests`): taken whole from the working tree.
    Test,
    /// A test-configuration file taken whole (`pytest.ini`, `jest.config.js`, …).
    WholeConfig,
    /// A file of which only some parts are test configuration.
    PartialConfig(PartialConfig),
    /// A Rust source file outside the test globs: it may hold inline test items.
    RustSource,
    /// Not part of the test surface: code, taken from the base in the red tree.
    NotTest,
}

impl Role {
    /// Whether the file is (or may hold part of) the test surface.
    pub fn is_surface(self) -> bool {
        self != Role::NotTest
    }
}

/// A bad `goal.tests` glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("goal.tests: `{glob}` is not a valid glob: {reason}")]
pub struct BadGlob {
    pub glob: String,
    pub reason: String,
}

/// The classification rules: the defaults plus `goal.tests` globs, or only those (`goal.testsOnly`).
#[derive(Debug, Clone)]
pub struct Surface {
    defaults: Vec<Pattern>,
    extra: Vec<Pattern>,
    tests_only: bool,
}

const MATCH: MatchOptions = MatchOptions {
    case_sensitive: true,
    require_literal_separator: true,
    require_literal_leading_dot: false,
};

impl Surface {
    /// The rules from the `goal.tests` globs (`extra`, as git config gives them) and
    /// `goal.testsOnly` (`tests_only`: the extra globs are then the whole surface: no default
    /// globs, no configuration files, no inline Rust tests). A glob that does not parse is an error
    /// naming it.
    pub fn new(extra: &[String], tests_only: bool) -> Result<Surface, BadGlob> {
        let defaults = DEFAULT_TEST_GLOBS
            .iter()
            .filter_map(|g| Pattern::new(g).ok())
            .collect();
        let extra = extra
            .iter()
            .map(|g| {
                Pattern::new(g.trim_start_matches("./")).map_err(|e| BadGlob {
                    glob: g.clone(),
                    reason: e.msg.to_string(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Surface {
            defaults,
            extra,
            tests_only,
        })
    }

    /// The rules a goal's settings give (GOAL.md's `tests:` and `tests_only:`, which `init`
    /// took from git config's `goal.tests` and `goal.testsOnly`).
    pub fn of_settings(settings: &crate::goal_file::Settings) -> Result<Surface, BadGlob> {
        Surface::new(&settings.tests, settings.tests_only)
    }

    /// The default rules (no `goal.tests`, `goal.testsOnly` unset).
    pub fn default_rules() -> Surface {
        Surface::new(&[], false).unwrap_or(Surface {
            defaults: Vec::new(),
            extra: Vec::new(),
            tests_only: false,
        })
    }

    /// What `path` (relative to the repository root, `/`-separated) is to the test surface.
    pub fn classify(&self, path: &str) -> Role {
        let matches = |p: &Pattern| p.matches_with(path, MATCH);
        if self.extra.iter().any(matches) {
            return Role::Test;
        }
        if self.tests_only {
            return Role::NotTest;
        }
        if self.defaults.iter().any(matches) {
            return Role::Test;
        }
        let name = path.rsplit('/').next().unwrap_or(path);
        if is_build_output(path) {
            return Role::WholeConfig;
        }
        if WHOLE_CONFIG_NAMES.contains(&name)
            || WHOLE_CONFIG_PREFIXES.iter().any(|p| name.starts_with(p))
            || path == ".cargo/config.toml"
            || path == ".cargo/config"
            || path.ends_with("/.cargo/config.toml")
            || path.ends_with("/.cargo/config")
        {
            return Role::WholeConfig;
        }
        let partial = match name {
            "pyproject.toml" => Some(PartialConfig::Pyproject),
            "package.json" => Some(PartialConfig::PackageJson),
            "Cargo.toml" => Some(PartialConfig::CargoToml),
            "Makefile" | "GNUmakefile" | "makefile" => Some(PartialConfig::Makefile),
            "justfile" | "Justfile" | ".justfile" => Some(PartialConfig::Justfile),
            _ => None,
        };
        if let Some(kind) = partial {
            return Role::PartialConfig(kind);
        }
        if name.ends_with(".rs") {
            return Role::RustSource;
        }
        Role::NotTest
    }
}

/// Committed build output a language's loader prefers over its source (Python byte code): on the
/// test surface, since it chooses the code a test runs.
pub fn is_build_output(path: &str) -> bool {
    path.ends_with(".pyc") || path.ends_with(".pyo") || path.contains("__pycache__/")
}

/// Whether a file the goal changed chooses what the goal's tests run without being a test: test
/// configuration (whole or partial), module resolution (`go.mod`, `go.work`, `.cargo/config`),
/// build scripts, `.gitattributes` filters, committed build output and `conftest.py`. The support
/// exam puts each back as the base had it.
pub fn is_support(surface: &Surface, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        surface.classify(path),
        Role::WholeConfig | Role::PartialConfig(_)
    ) || matches!(
        name,
        "go.mod" | "go.work" | "build.rs" | ".gitattributes" | "conftest.py"
    ) || is_build_output(path)
}

/// The test surface of a goal's `settings`; a bad glob is a usage error naming it.
pub fn surface_of(settings: &crate::goal_file::Settings) -> crate::error::Result<Surface> {
    Surface::of_settings(settings).map_err(|e| {
        crate::error::Error::usage(
            format!("GOAL.md's `tests:` {e}"),
            "a person fixes it with `goal criteria surface --tests <glob>... --confirm`",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::PartialConfig::*;
    use super::Role::*;
    use super::*;

    #[test]
    fn classification_by_default() {
        let surface = Surface::default_rules();
        let cases: &[(&str, Role)] = &[
            ("tests/test_calc.py", Test),
            ("tests/a/b/c.rs", Test),
            ("test/x.js", Test),
            ("spec/models/user_spec.rb", Test),
            ("src/__tests__/a.js", Test),
            ("__tests__/a.js", Test),
            ("test_calc.py", Test),
            ("pkg/test_calc.py", Test),
            ("pkg/calc_test.py", Test),
            ("conftest.py", Test),
            ("pkg/sub/conftest.py", Test),
            ("calc_test.go", Test),
            ("internal/calc/calc_test.go", Test),
            ("src/add.test.ts", Test),
            ("add.spec.js", Test),
            ("src/main/java/CalcTest.java", Test),
            ("Calc.Tests/CalcTests.cs", Test),
            ("pytest.ini", WholeConfig),
            ("tox.ini", WholeConfig),
            ("setup.cfg", WholeConfig),
            ("jest.config.js", WholeConfig),
            ("web/jest.config.ts", WholeConfig),
            ("vitest.config.mts", WholeConfig),
            (".mocharc.yml", WholeConfig),
            (".cargo/config.toml", WholeConfig),
            ("pyproject.toml", PartialConfig(Pyproject)),
            ("package.json", PartialConfig(PackageJson)),
            ("web/package.json", PartialConfig(PackageJson)),
            ("Cargo.toml", PartialConfig(CargoToml)),
            ("crates/a/Cargo.toml", PartialConfig(CargoToml)),
            ("Makefile", PartialConfig(Makefile)),
            ("justfile", PartialConfig(Justfile)),
            ("src/lib.rs", RustSource),
            ("crates/a/src/calc.rs", RustSource),
            ("src/calc.py", NotTest),
            ("src/testing.py", NotTest),
            ("contest.py", NotTest),
            ("calc.go", NotTest),
            ("README.md", NotTest),
            ("latest/x.py", NotTest),
            ("src/tests.txt", NotTest),
        ];
        for (path, want) in cases {
            assert_eq!(surface.classify(path), *want, "{path}");
        }
    }

    #[test]
    fn classification_with_configured_globs() {
        let extra = vec!["checks/**".to_string(), "src/*_check.py".to_string()];
        let added = Surface::new(&extra, false).unwrap();
        let only = Surface::new(&extra, true).unwrap();
        let cases: &[(&str, Role, Role)] = &[
            // path, goal.tests added to the defaults, goal.tests as the whole surface
            ("checks/a.sh", Test, Test),
            ("src/calc_check.py", Test, Test),
            ("src/deep/calc_check.py", NotTest, NotTest),
            ("tests/test_calc.py", Test, NotTest),
            ("pytest.ini", WholeConfig, NotTest),
            ("pyproject.toml", PartialConfig(Pyproject), NotTest),
            ("src/lib.rs", RustSource, NotTest),
        ];
        for (path, with_defaults, alone) in cases {
            assert_eq!(added.classify(path), *with_defaults, "{path}");
            assert_eq!(only.classify(path), *alone, "{path} (testsOnly)");
        }
    }

    #[test]
    fn a_bad_glob_is_named() {
        let err = Surface::new(&["tests/[".to_string()], false).unwrap_err();
        assert_eq!(err.glob, "tests/[");
        assert!(
            err.to_string().starts_with("goal.tests: `tests/[`"),
            "{err}"
        );
    }
}
