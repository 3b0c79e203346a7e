use std::path::Path;
use std::process::Command;

use super::*;

/// A hermetic repository driven with the git CLI (the referee).
struct Git {
    dir: tempfile::TempDir,
}

impl Git {
    fn new() -> Git {
        let git = Git {
            dir: tempfile::tempdir().unwrap(),
        };
        git.run(&["init", "-q", "-b", "main"]);
        git
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.dir.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "T")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "T")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn remove(&self, path: &str) {
        std::fs::remove_file(self.dir.path().join(path)).unwrap();
    }

    /// The tree of the working tree as it is now (`git add -A; git write-tree`).
    fn tree(&self) -> Oid {
        self.run(&["add", "-A"]);
        Oid::from_str(self.run(&["write-tree"]).trim()).unwrap()
    }

    /// `git ls-tree -r --name-only <tree>`.
    fn paths(&self, tree: Oid) -> Vec<String> {
        self.run(&["ls-tree", "-r", "--name-only", &tree.to_string()])
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// `git cat-file -p <tree>:<path>`.
    fn show(&self, tree: Oid, path: &str) -> String {
        self.run(&["cat-file", "-p", &format!("{tree}:{path}")])
    }

    fn repo(&self) -> Repo {
        Repo::discover(self.dir.path()).unwrap()
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn red(git: &Git, base: Oid, work: Oid) -> RedTree {
    red_tree(&git.repo(), base, work, &Surface::default_rules()).unwrap()
}

#[test]
fn python_package_red_tree() {
    let git = Git::new();
    git.write("calc.py", "def add(a, b):\n    return a - b\n");
    git.write("tests/test_calc.py", "def test_old():\n    assert True\n");
    git.write("tests/test_gone.py", "def test_gone():\n    assert True\n");
    git.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    );
    git.write("README.md", "old\n");
    let base = git.tree();
    // The goal: fixes the code, rewrites the tests, deselects, adds a conftest, deletes a test.
    git.write("calc.py", "def add(a, b):\n    return a + b\n");
    git.write(
        "tests/test_calc.py",
        "from calc import add\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    );
    git.remove("tests/test_gone.py");
    git.write("tests/conftest.py", "import sys\n");
    git.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"2\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n",
    );
    git.write("README.md", "new\n");
    git.write("pytest.ini", "[pytest]\naddopts = -x\n");
    let work = git.tree();

    let made = red(&git, base, work);
    assert_eq!(made.untrusted, vec![]);
    assert_eq!(
        git.paths(made.tree),
        vec![
            "README.md",
            "calc.py",
            "pyproject.toml",
            "pytest.ini",
            "tests/conftest.py",
            "tests/test_calc.py"
        ]
    );
    assert_eq!(
        git.show(made.tree, "calc.py"),
        "def add(a, b):\n    return a - b\n"
    );
    assert_eq!(git.show(made.tree, "README.md"), "old\n");
    assert_eq!(
        git.show(made.tree, "tests/test_calc.py"),
        git.show(work, "tests/test_calc.py")
    );
    assert_eq!(
        git.show(made.tree, "pytest.ini"),
        "[pytest]\naddopts = -x\n"
    );
    // Only the pytest table comes from the working file; the project table is the base's.
    assert_eq!(
        git.show(made.tree, "pyproject.toml"),
        "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n"
    );
    // The test surface alone.
    assert_eq!(
        git.paths(made.tests),
        vec![
            "pyproject.toml",
            "pytest.ini",
            "tests/conftest.py",
            "tests/test_calc.py"
        ]
    );
    assert_eq!(
        git.show(made.tests, "pyproject.toml"),
        "[tool.pytest.ini_options]\naddopts = \"-k mul\"\n"
    );

    // Same tests, other code: the same `tests` tree; different tests: another.
    git.write("calc.py", "def add(a, b):\n    return b + a\n");
    git.write("README.md", "newer\n");
    let work2 = git.tree();
    let again = red(&git, base, work2);
    assert_eq!(again.tests, made.tests);
    assert_eq!(again.tree, made.tree);
    git.write("tests/test_calc.py", "def test_other():\n    assert 1\n");
    assert_ne!(red(&git, base, git.tree()).tests, made.tests);
}

const LIB_BASE: &str = "\
pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    #[test]
    fn old() {}
}
";

const LIB_WORK: &str = "\
pub mod fresh;
pub mod plain;

pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(2, 2), 4);
    }
}
";

#[test]
fn rust_crate_red_tree() {
    let git = Git::new();
    git.write(
        "Cargo.toml",
        "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    git.write("src/lib.rs", LIB_BASE);
    git.write("src/untouched.rs", "#[test]\nfn stays() {}\n");
    git.write("src/inner.rs", "pub fn x() {}\n#[cfg(test)]\nmod tests;\n");
    git.write(
        "src/inner/tests.rs",
        "use super::*;\n#[test]\nfn t() { x(); }\n",
    );
    let base = git.tree();
    git.write("src/lib.rs", LIB_WORK);
    // A new module holding code and a test; another new module holding code only.
    git.write(
        "src/fresh.rs",
        "pub fn f() -> u8 { 1 }\n\n#[test]\nfn f_is_one() {\n    assert_eq!(f(), 1);\n}\n",
    );
    git.write("src/plain.rs", "pub fn p() {}\n");
    // A test module file reached by #[cfg(test)] mod tests; is a test file whole.
    git.write(
        "src/inner/tests.rs",
        "use super::*;\nfn helper() -> u8 { 2 }\n#[test]\nfn t() { x(); helper(); }\n",
    );
    git.write(
        "Cargo.toml",
        "[package]\nname = \"c\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n[dependencies]\nserde = \"1\"\n\n[[test]]\nname = \"it\"\nharness = false\n",
    );
    let work = git.tree();

    let made = red(&git, base, work);
    assert_eq!(made.untrusted, vec![]);
    assert_eq!(
        git.paths(made.tree),
        vec![
            "Cargo.toml",
            "src/fresh.rs",
            "src/inner.rs",
            "src/inner/tests.rs",
            "src/lib.rs",
            "src/untouched.rs"
        ]
    );
    // The base's code and the working tests, in the working layout; `mod fresh;` reaches a test.
    assert_eq!(
        git.show(made.tree, "src/lib.rs"),
        LIB_WORK
            .replace("pub mod plain;\n", "")
            .replace("a + b", "a - b")
    );
    assert_eq!(
        git.show(made.tree, "src/fresh.rs"),
        "#[test]\nfn f_is_one() {\n    assert_eq!(f(), 1);\n}\n"
    );
    assert_eq!(
        git.show(made.tree, "src/inner/tests.rs"),
        git.show(work, "src/inner/tests.rs")
    );
    assert_eq!(
        git.show(made.tree, "src/untouched.rs"),
        "#[test]\nfn stays() {}\n"
    );
    // Cargo.toml: the base's package and dependencies, the working [[test]].
    assert_eq!(
        git.show(made.tree, "Cargo.toml"),
        "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[[test]]\nname = \"it\"\nharness = false\n"
    );
    let tests = git.paths(made.tests);
    assert_eq!(
        tests,
        vec![
            "Cargo.toml",
            "src/fresh.rs",
            "src/inner.rs",
            "src/inner/tests.rs",
            "src/lib.rs",
            "src/untouched.rs"
        ]
    );
    assert!(!git.show(made.tests, "src/lib.rs").contains("a + b"));
}

#[test]
fn an_unparsable_rust_file_makes_the_red_tree_untrusted() {
    let git = Git::new();
    git.write("src/lib.rs", "pub fn f() {}\n");
    let base = git.tree();
    git.write("src/lib.rs", "pub fn f() {}\n#[test]\nfn t() { let = ; }\n");
    let made = red(&git, base, git.tree());
    assert_eq!(made.untrusted.len(), 1, "{:?}", made.untrusted);
    assert_eq!(made.untrusted[0].path, "src/lib.rs");
    assert!(
        made.untrusted[0]
            .reason
            .starts_with("src/lib.rs does not parse as Rust: line 3"),
        "{:?}",
        made.untrusted
    );
    let _ = git.path();
}

#[test]
fn an_unparsable_config_is_untrusted_and_taken_whole() {
    let git = Git::new();
    git.write(
        "package.json",
        "{\"name\": \"c\", \"scripts\": {\"test\": \"node --test\"}}\n",
    );
    let base = git.tree();
    git.write("package.json", "{\"name\": \"c\", \n");
    let work = git.tree();
    let made = red(&git, base, work);
    assert_eq!(made.untrusted.len(), 1);
    assert!(
        made.untrusted[0]
            .reason
            .starts_with("package.json does not parse"),
        "{:?}",
        made.untrusted
    );
    assert_eq!(git.show(made.tree, "package.json"), "{\"name\": \"c\", \n");
}

#[test]
fn no_change_is_the_base_tree() {
    let git = Git::new();
    git.write("src/lib.rs", LIB_BASE);
    git.write("tests/t.rs", "#[test]\nfn t() {}\n");
    let base = git.tree();
    let made = red(&git, base, base);
    assert_eq!(made.tree, base);
    assert!(made.untrusted.is_empty());
}

#[test]
fn surface_changes_and_their_findings() {
    let git = Git::new();
    git.write("calc.py", "def add(a, b):\n    return a - b\n");
    git.write(
        "tests/test_calc.py",
        "def test_add():\n    assert add(2, 2) == 4\n",
    );
    git.write("src/lib.rs", "pub fn f() {}\n");
    git.write("src/code.rs", "pub fn g() {}\n");
    let base = git.tree();
    git.write("calc.py", "def add(a, b):\n    return a + b\n");
    git.write(
        "tests/test_calc.py",
        "import pytest\n\n@pytest.mark.skip\ndef test_add():\n    assert add(2, 2) == 4\n",
    );
    git.write("src/lib.rs", "pub fn f() {}\n#[test]\nfn t() {}\n");
    git.write("src/code.rs", "pub fn g() { }\n");
    let last = git.tree();
    let surface = Surface::default_rules();
    let changes = surface_changes(&git.repo(), base, last, &surface).unwrap();
    let paths: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, vec!["src/lib.rs", "tests/test_calc.py"]);
    let found = super::super::weaken::findings(&surface, &changes);
    let kinds: Vec<String> = found.findings.iter().map(|f| f.trailer_value()).collect();
    assert_eq!(
        kinds,
        vec![
            "assertion-free src/lib.rs:3 t",
            "skip-added tests/test_calc.py:3 test_add"
        ]
    );
}

#[test]
fn surface_from_git_config() {
    let git = Git::new();
    git.run(&["config", "--add", "goal.tests", "checks/**"]);
    git.run(&["config", "--add", "goal.tests", "*.bats"]);
    let of_git = |git: &Git| crate::config::goal_settings(&git.repo()).unwrap();
    let surface = Surface::of_settings(&of_git(&git)).unwrap();
    assert_eq!(surface.classify("checks/a.sh"), Role::Test);
    assert_eq!(surface.classify("x.bats"), Role::Test);
    assert_eq!(surface.classify("tests/t.py"), Role::Test);
    git.run(&["config", "goal.testsOnly", "yes"]);
    let only = Surface::of_settings(&of_git(&git)).unwrap();
    assert_eq!(only.classify("tests/t.py"), Role::NotTest);
    assert_eq!(only.classify("checks/a.sh"), Role::Test);
    git.run(&["config", "--add", "goal.tests", "bad/["]);
    assert_eq!(
        Surface::of_settings(&of_git(&git)).unwrap_err().glob,
        "bad/["
    );
}
