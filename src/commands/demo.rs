//! `goal demo`: a whole loop in a scratch repository, each step printed as it runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::context::Ctx;
use crate::error::{Error, Result};

/// Walk a whole goal loop in a new scratch repository: init with criteria, iterations with
/// evidence, block and resume, status, log and done. Prints every command and its output.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to make the scratch repository (default: a new temporary folder, kept).
    #[arg(long = "dir", id = "demo_dir", value_name = "DIR")]
    pub demo_dir: Option<PathBuf>,
}

/// A tiny linter (a guard: it must stay clean, before the goal and after it). It prints no test
/// summary, as linters do.
const LINT_SCRIPT: &str = r#"#!/bin/sh
# A tiny linter: no line of a shell script ends in a space.
if grep -n ' $' *.sh tests/*.sh 2>/dev/null; then echo "lint: trailing spaces"; exit 1; fi
echo "lint: clean"
"#;

/// Criterion 1's test, written first: a plain "N passed, N failed" summary goal recognises.
const GREET_TEST: &str = r#"#!/bin/sh
if [ "$(sh greet.sh 2>/dev/null)" = "hello" ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
"#;

/// Criterion 2's test.
const README_TEST: &str = r#"#!/bin/sh
if grep -q "sh greet.sh" README.md 2>/dev/null; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
"#;

struct Demo {
    exe: PathBuf,
    dir: PathBuf,
}

impl Demo {
    fn step(&self, title: &str) {
        println!("\n## {title}");
    }

    fn goal(&self, args: &[&str], expect: i32) -> Result<()> {
        println!(
            "$ goal {}",
            args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
        );
        let status = Command::new(&self.exe)
            .args(args)
            .current_dir(&self.dir)
            .env_remove("GOAL_FILE")
            .status()
            .map_err(|source| Error::Spawn {
                program: self.exe.display().to_string(),
                source,
            })?;
        let code = status.code().unwrap_or(-1);
        if code != expect {
            return Err(Error::refused(
                format!(
                    "demo step `goal {}` exited {code}, expected {expect}",
                    args.join(" ")
                ),
                format!("inspect the scratch repository in {}", self.dir.display()),
            ));
        }
        Ok(())
    }

    fn git(&self, args: &[&str]) -> Result<String> {
        crate::repo::git_cli::git_output(&self.dir, args)
    }

    fn write(&self, name: &str, text: &str) -> Result<()> {
        println!("(the agent writes {name})");
        let path = self.dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("cannot create", parent))?;
        }
        std::fs::write(&path, text).map_err(Error::io("cannot write", path))
    }
}

fn quote(arg: &str) -> String {
    if arg
        .chars()
        .all(|c| c.is_alphanumeric() || "-_./=:".contains(c))
        && !arg.is_empty()
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

fn scratch(dir: Option<&Path>) -> Result<PathBuf> {
    match dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(Error::io("cannot create", d))?;
            if std::fs::read_dir(d)
                .map_err(Error::io("cannot read", d))?
                .next()
                .is_some()
            {
                return Err(Error::usage(
                    format!("{} is not empty", d.display()),
                    "give `goal demo --dir` a new or empty folder",
                ));
            }
            Ok(d.to_path_buf())
        }
        None => tempfile::Builder::new()
            .prefix("goal-demo-")
            .tempdir()
            .map(|t| t.keep())
            .map_err(Error::io(
                "cannot create a temporary folder in",
                std::env::temp_dir(),
            )),
    }
}

/// `goal demo`: the scratch repository made, then each step of the loop run and printed in
/// turn, ending with where the repository stays.
pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let dir = args.demo_dir.as_ref().map(|d| {
        if d.is_absolute() {
            d.clone()
        } else {
            ctx.cwd.join(d)
        }
    });
    let dir = scratch(dir.as_deref())?;
    let exe = std::env::current_exe().map_err(Error::io("cannot find the goal binary", "goal"))?;
    let demo = Demo {
        exe,
        dir: dir.clone(),
    };
    println!(
        "goal demo: a whole loop in the scratch repository {}",
        dir.display()
    );
    demo.repository_with_linter()?;
    demo.set_goal()?;
    demo.first_iteration()?;
    demo.step("3. Blocked, then resumed");
    demo.goal(&["block", "--reason", "waiting for the README wording"], 0)?;
    demo.goal(&["resume"], 0)?;
    demo.second_iteration()?;
    demo.step("5. The audit trail");
    demo.goal(&["log"], 0)?;
    demo.done()?;
    println!(
        "\nThe demo repository stays in {} for you to look at.",
        dir.display()
    );
    Ok(0)
}

impl Demo {
    /// The scratch repository: git set up, and a first commit with the linter.
    fn repository_with_linter(&self) -> Result<()> {
        self.step("A scratch repository with a linter");
        self.git(&["init", "-q"])?;
        self.git(&["config", "user.name", "goal demo"])?;
        self.git(&["config", "user.email", "demo@example.invalid"])?;
        self.write("lint.sh", LINT_SCRIPT)?;
        self.git(&["add", "lint.sh"])?;
        self.git(&["commit", "-q", "-m", "a linter"])?;
        Ok(())
    }

    /// Step 1: `goal init` with two acceptance criteria and a guard, each pinned to its test.
    fn set_goal(&self) -> Result<()> {
        self.step(
            "1. Set the goal, each criterion pinned to the test that proves it (a commit): two acceptance criteria (verify: red before the change, green after it) and a guard (must stay green)",
        );
        self.goal(
            &[
                "init",
                "Ship a greeting script",
                "-c",
                "`sh greet.sh` prints hello (verify: `sh tests/test_greet.sh`)",
                "-c",
                "README.md documents `sh greet.sh` (verify: `sh tests/test_readme.sh`)",
                "-c",
                "The shell scripts stay lint-clean (guard: `sh lint.sh`)",
            ],
            0,
        )
    }

    /// Step 2: the tests written first and seen failing (the red witnesses), then criterion 1
    /// made to pass and the iteration recorded.
    fn first_iteration(&self) -> Result<()> {
        self.step(
            "2. Iteration 1, test first: write the tests of criteria 1 and 2, see them fail, then make criterion 1 pass",
        );
        self.write("tests/test_greet.sh", GREET_TEST)?;
        self.write("tests/test_readme.sh", README_TEST)?;
        self.goal(&["verify", "-c", "1"], 1)?;
        self.goal(&["verify", "-c", "2"], 1)?;
        println!(
            "(red: both tests fail on the code before the change — these failing runs are the criteria's red witnesses; `goal done` needs no extra run)"
        );
        self.write("greet.sh", "echo hello\n")?;
        self.goal(&["verify", "-c", "1"], 0)?;
        println!("(green: the same test passes now)");
        self.goal(
            &[
                "iterate",
                "-m",
                "tests first (both failed), then greet.sh (criterion 1 passes)",
            ],
            0,
        )
    }

    /// Step 4: the README written, every pin verified on the same tree, the iteration recorded
    /// and the status shown.
    fn second_iteration(&self) -> Result<()> {
        self.step(
            "4. Iteration 2: the README, then every pin once (the guard too): all proven on the same tree",
        );
        self.write("README.md", "# greet\n\nRun `sh greet.sh`.\n")?;
        self.goal(&["verify"], 0)?;
        self.goal(
            &["iterate", "-m", "added README.md; verified every criterion"],
            0,
        )?;
        self.goal(&["status"], 0)
    }

    /// Step 6: `goal done` through its gate, then the repository's history.
    fn done(&self) -> Result<()> {
        self.step(
            "6. Done: the completion gate (red before green for criteria 1 and 2, the guard's run on the base), the clean-up pass, two commits",
        );
        self.goal(&["done"], 0)?;
        println!("$ git log --oneline");
        print!("{}", self.git(&["log", "--oneline"])?);
        Ok(())
    }
}
