//! Running the mutation tools in the kept worktree on the final tree, over the whole functions
//! the goal changed: cargo-mutants (its list of the changed files' mutants, then a sample of
//! those in the changed functions, `--in-place`), mutmut (the functions the diff touches),
//! StrykerJS (the changed functions' lines, its command runner running the pins). Their output folders stay out of the user's
//! worktree: cargo-mutants' and Stryker's reports go to a temporary folder, mutmut's `mutants/`
//! lives in the kept worktree, which the next run resets.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Pin;
use crate::error::{Error, Result};
use crate::mutants::functions::SAMPLE_MAX;
use crate::mutants::hunks::FileChange;
use crate::mutants::outcomes::{self, Read};
use crate::mutants::tools::{self as rules, Tool};
use crate::mutants::{Missing, Mutation, Sample, ToolRun};
use crate::ops::red::Place;
use crate::repo::{Oid, TreeChange};
use crate::surface::tree_run::run_in_tree;
use crate::workspace::Workspace;

/// Each tool over the files of its language, for the pins it runs.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_all(
    ws: &Workspace,
    place: &Place,
    work: Oid,
    files: &[FileChange],
    pins: &[Pin],
    m: &mut Mutation,
    output: &mut Vec<u8>,
) -> Result<()> {
    let mut by_tool: BTreeMap<Tool, Vec<&FileChange>> = BTreeMap::new();
    // A file gone holds nothing to mutate; a file renamed as it was, nothing changed.
    let kept = files
        .iter()
        .filter(|f| f.after.is_some() && !crate::mutants::hunks::renamed(f, files));
    for f in kept {
        match Tool::of_path(&f.path) {
            Some(tool) => by_tool.entry(tool).or_default().push(f),
            // Code no tool here mutates: the gate must not read its silence as a pass.
            None => m.unchecked.push(f.path.clone()),
        }
    }
    for (tool, files) in by_tool {
        let runs: Vec<&Pin> = pins.iter().filter(|p| tool.runs(&p.argv)).collect();
        if runs.is_empty() {
            for p in pins {
                m.notes.push(not_applicable(tool, p));
            }
            continue;
        }
        let Some(program) = find(ws.root(), tool) else {
            m.missing.push(Missing {
                tool: tool.name().into(),
                install: tool.install(),
            });
            continue;
        };
        crate::context::note(format!(
            "mutants: running {} on the changed functions…",
            tool.name()
        ));
        let clock = std::time::Instant::now();
        let job = Job {
            ws,
            place,
            work,
            files: &files,
            pins: &runs,
            program: &program,
        };
        let ran = match tool {
            Tool::CargoMutants => job.cargo_mutants()?,
            Tool::Mutmut => job.mutmut()?,
            Tool::Stryker => job.stryker()?,
        };
        output.extend_from_slice(&ran.2);
        record(tool, ran, clock, m);
    }
    Ok(())
}

/// What one tool's run came to, added to the record: its totals, survivors, sample, and why
/// nothing is known of its mutants when that is so.
fn record(tool: Tool, ran: Ran, clock: std::time::Instant, m: &mut Mutation) {
    let (exit_code, read, _, sample) = ran;

    let unread = read.is_err();
    let read = read.unwrap_or_else(|why| {
        m.failed
            .push(format!("{} (exit {exit_code}): {why}", tool.name()));
        Read::default()
    });
    // Mutants made and none run: nothing is known of them (the gate fails closed).
    if let Some(why) = read.ran_none(tool.name()) {
        m.failed.push(why);
    }
    // mutmut and Stryker take whole functions and line ranges, not a list of mutants: they
    // run every mutant of the changed functions, under the pins' time bound. Results that
    // could not be read count nothing.
    let sample = sample.unwrap_or_else(|| {
        if unread {
            return Sample::default();
        }
        if read.made > SAMPLE_MAX as u64 {
            m.notes.push(format!(
                "{} cannot be given a sample of mutants: it ran all {} mutants of the changed functions",
                tool.name(),
                read.made
            ));
        }
        Sample::all(read.made)
    });
    m.tools.push(ToolRun {
        tool: tool.name().into(),
        exit_code,
        totals: read.totals,
        duration_ms: clock.elapsed().as_millis() as u64,
        sample,
    });
    m.totals.add(read.totals);
    m.sample.add(sample);
    m.survivors.extend(read.survivors);
}

/// "mutants: not applicable for this pin": the code of `tool`'s language with a pin it does not
/// run (the hunk check alone judges it).
fn not_applicable(tool: Tool, p: &Pin) -> String {
    let needs = match tool {
        Tool::CargoMutants => "Rust code is mutated for `cargo test`/`cargo nextest` pins",
        Tool::Mutmut => "Python code is mutated for pytest pins",
        Tool::Stryker => "JavaScript code is mutated for any pin",
    };
    format!(
        "not applicable for this pin `{}` of criterion {} ({needs}); the hunk check alone judges it",
        crate::pin::render(&p.argv),
        p.number
    )
}

/// Whether a record that found `missing` not installed is stale: one of its tools is there now.
pub(super) fn installed_since(work_root: &Path, missing: &[Missing]) -> bool {
    missing
        .iter()
        .filter_map(|m| Tool::named(&m.tool))
        .any(|tool| find(work_root, tool).is_some())
}

/// Where a tool's program is: on `PATH`, in the working tree's virtualenv or `node_modules`,
/// or (cargo-mutants) in cargo's own bin folder.
fn find(work_root: &Path, tool: Tool) -> Option<PathBuf> {
    let name = tool.program();
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    match tool {
        Tool::Mutmut => {
            dirs.extend([".venv/bin", "venv/bin"].map(|d| work_root.join(d)));
        }
        Tool::Stryker => dirs.push(work_root.join("node_modules/.bin")),
        Tool::CargoMutants => {
            let home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
            dirs.extend(home.map(|h| h.join("bin")));
        }
    }
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One tool's run: what it mutates, with which pins.
struct Job<'a> {
    ws: &'a Workspace,
    place: &'a Place,
    work: Oid,
    files: &'a [&'a FileChange],
    pins: &'a [&'a Pin],
    program: &'a Path,
}

/// A tool's run: its exit code, its outputs read (Err: why they could not be, which makes the
/// tool `failed` in the record), what it printed and (when it was given a sample) how many of the
/// changed functions' mutants it ran.
type Ran = (
    i32,
    std::result::Result<Read, String>,
    Vec<u8>,
    Option<Sample>,
);

fn temp() -> Result<tempfile::TempDir> {
    tempfile::tempdir().map_err(Error::io(
        "cannot create a temporary folder in",
        std::env::temp_dir(),
    ))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(Error::io("cannot write", path))
}

impl Job<'_> {
    fn argvs(&self) -> Vec<Vec<String>> {
        self.pins.iter().map(|p| p.argv.clone()).collect()
    }

    fn run(&self, tree: Oid, argv: &[String]) -> Result<(i32, Vec<u8>)> {
        let options = super::options(self.ws, !crate::context::quiet());
        let run = run_in_tree(&self.ws.repo, self.place.head, tree, argv, &options)?;
        Ok((run.exit_code, run.output))
    }

    /// cargo-mutants over the changed functions: the changed files' mutants listed, those of the
    /// changed functions sampled (changed lines first, at most [`SAMPLE_MAX`]) and run in place
    /// by name, the report read from `outcomes.json` whatever the exit code (3 hides 2).
    fn cargo_mutants(&self) -> Result<Ran> {
        let dir = temp()?;
        let paths: Vec<&str> = self.files.iter().map(|f| f.path.as_str()).collect();
        let list = dir.path().join("list.json");
        let mut argv: Vec<String> = vec![
            "sh".into(),
            "-c".into(),
            r#"out="$1"; shift; "$@" > "$out""#.into(),
            "sh".into(),
            list.to_string_lossy().into_owned(),
        ];
        let mut lister = rules::cargo_mutants_list_args(&paths);
        lister[0] = self.program.to_string_lossy().into_owned();
        argv.extend(lister);
        let (code, mut output) = self.run(self.work, &argv)?;
        let listed = match std::fs::read_to_string(&list) {
            Ok(json) if code == 0 => rules::cargo_mutants_listed(&json),
            _ => Err(format!(
                "cargo-mutants could not list the mutants (exit {code})"
            )),
        };
        let (names, total) = match listed {
            Ok(listed) => rules::cargo_mutants_selection(&listed, self.files),
            Err(why) => return Ok((code, Err(why), output, None)),
        };
        let sample = Sample {
            sampled: Some(names.len() as u64),
            total: Some(total),
        };
        if names.is_empty() {
            return Ok((0, Ok(Read::default()), output, Some(sample)));
        }
        let out = dir.path().join("out");
        let mut argv = rules::cargo_mutants_args(
            &rules::examine_re(&names),
            &paths,
            &out.to_string_lossy(),
            &self.argvs(),
            crate::child::pin_timeout_each()?.as_secs(),
        );
        argv[0] = self.program.to_string_lossy().into_owned();
        let (code, more) = self.run(self.work, &argv)?;
        output.extend_from_slice(&more);
        let read = outcomes::cargo_mutants_exit(code).and_then(|()| {
            match std::fs::read_to_string(out.join("mutants.out/outcomes.json")) {
                Ok(json) => outcomes::cargo_mutants(&json),
                // No mutant selected: nothing to write, nothing missed.
                Err(_) if code == 0 => Ok(Read::default()),
                Err(e) => Err(format!("cargo-mutants wrote no outcomes.json: {e}")),
            }
        });
        Ok((code, read, output, Some(sample)))
    }

    /// mutmut over the functions the diff touches, configured through the tree it runs on
    /// (`[tool.mutmut]` of `pyproject.toml`, else `[mutmut]` of `setup.cfg`), its results and
    /// each survivor's `show` printed after the run.
    fn mutmut(&self) -> Result<Ran> {
        let names: Vec<String> = self
            .files
            .iter()
            .flat_map(|f| rules::mutmut_names(f))
            .collect();
        if names.is_empty() {
            return Ok((0, Ok(Read::default()), Vec::new(), None));
        }
        let tree = self.mutmut_tree()?;
        let mut argv: Vec<String> = vec![
            "sh".into(),
            "-c".into(),
            MUTMUT_SCRIPT.into(),
            "sh".into(),
            self.program.to_string_lossy().into_owned(),
        ];
        argv.extend(names);
        let (code, output) = self.run(tree, &argv)?;
        let text = String::from_utf8_lossy(&output);
        let read = match text.split_once(MUTMUT_MARKER) {
            Some((_, results)) => Ok(outcomes::mutmut(results, &|file, class, func| {
                let text = self
                    .files
                    .iter()
                    .find(|f| f.path == file)
                    .and_then(|f| f.after.as_deref())
                    .unwrap_or("");
                outcomes::python_def_line(text, class, func)
            })),
            None => Err(format!("mutmut did not finish (exit {code})")),
        };
        // mutmut made the mutants and found no test to run them with: nothing is known of them.
        let read = match read {
            Ok(_) if text.contains("could not find any test case for any mutant") => Err(
                "mutmut found no test case for its mutants: it ran the pins on none of them".into(),
            ),
            other => other,
        };
        Ok((code, read, output, None))
    }

    /// The final tree with mutmut's configuration laid in: the changed files mutated, the
    /// folders holding them copied, the pins' pytest arguments selecting the tests.
    fn mutmut_tree(&self) -> Result<Oid> {
        let mut sources: Vec<String> = Vec::new();
        for f in self.files {
            let top = match f.path.split_once('/') {
                Some((dir, _)) => format!("{dir}/"),
                None => f.path.clone(),
            };
            if !sources.contains(&top) {
                sources.push(top);
            }
        }
        let only: Vec<String> = self.files.iter().map(|f| f.path.clone()).collect();
        let selection: Vec<String> = self
            .pins
            .iter()
            .filter_map(|p| rules::pytest_args(&p.argv))
            .flatten()
            .collect();
        let repo = &self.ws.repo;
        let (path, text) = match repo.file_in_tree(self.work, Path::new("pyproject.toml"))? {
            Some(bytes) => (
                "pyproject.toml",
                rules::mutmut_pyproject(
                    &String::from_utf8_lossy(&bytes),
                    &sources,
                    &only,
                    &selection,
                ),
            ),
            None => {
                let old = repo
                    .file_in_tree(self.work, Path::new("setup.cfg"))?
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                (
                    "setup.cfg",
                    rules::mutmut_setup_cfg(&old, &sources, &only, &selection),
                )
            }
        };
        let id = repo.write_blob(text.as_bytes())?;
        repo.update_tree(
            self.work,
            &[TreeChange::Upsert {
                path: path.into(),
                id,
                mode: 0o100644,
            }],
        )
    }

    /// StrykerJS with the command runner running the pins over the changed functions, its JSON
    /// report written to a temporary folder.
    fn stryker(&self) -> Result<Ran> {
        let dir = temp()?;
        let report = dir.path().join("mutation.json");
        let config = dir.path().join("stryker.config.json");
        write(
            &config,
            &rules::stryker_config(
                self.files,
                &self.argvs(),
                &report.to_string_lossy(),
                crate::child::pin_timeout_each()?.as_secs(),
            ),
        )?;
        let argv = vec![
            self.program.to_string_lossy().into_owned(),
            "run".into(),
            config.to_string_lossy().into_owned(),
        ];
        let (code, output) = self.run(self.work, &argv)?;
        let read = match std::fs::read_to_string(&report) {
            Ok(json) => outcomes::stryker(&json),
            Err(e) => Err(format!("Stryker wrote no JSON report (exit {code}): {e}")),
        };
        Ok((code, read, output, None))
    }
}

/// Printed between mutmut's run and its results.
const MUTMUT_MARKER: &str = "\n=== mutmut results ===\n";

/// `sh -c` script: `$1` is mutmut, the rest the mutant names to run. The results of all, then
/// the diff of each survivor.
const MUTMUT_SCRIPT: &str = r#"m="$1"; shift
"$m" run --max-children 2 "$@"
printf '\n=== mutmut results ===\n'
"$m" results --all true
"$m" results | sed -n 's/^ *\(.*\): \(survived\|no tests\)$/\1/p' | while read -r n; do "$m" show "$n"; done
"#;
