//! Each mutation tool's results read as its documentation describes them: cargo-mutants'
//! `outcomes.json` (whatever its exit code: 3, for a timeout, hides 2, for a missed mutant),
//! mutmut's `results --all true` and `show` output (it exits 0 with survivors), StrykerJS's JSON
//! report (the mutation-testing-report schema). Pure.

use super::{Survivor, Totals};

/// What a tool's results came to: the totals, the survivors, and how many mutants the tool made
/// (listed, whether or not it ran them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Read {
    pub totals: Totals,
    pub survivors: Vec<Survivor>,
    pub made: u64,
}

impl Read {
    /// Why these results say nothing though the tool made mutants: it ran none of them (mutmut's
    /// "could not find any test case for any mutant", every mutant left unchecked or skipped).
    /// A tool that made no mutant has nothing to say, and that is not this.
    pub fn ran_none(&self, tool: &str) -> Option<String> {
        let t = self.totals;
        let ran = t.killed + t.survived + t.timeout + t.unviable;
        (self.made > 0 && ran == 0).then(|| {
            format!(
                "{tool} made {} mutant(s) of the change and ran the pins on none of them",
                self.made
            )
        })
    }
}

/// cargo-mutants' exit code: Ok for a run that tested the mutants (0: all caught, 2: some
/// missed, 3: some timed out — which may hide missed ones), else what went wrong.
pub fn cargo_mutants_exit(code: i32) -> Result<(), String> {
    match code {
        0 | 2 | 3 => Ok(()),
        1 => Err("cargo-mutants was called wrongly (exit 1)".into()),
        4 => Err("the tests fail without any mutation (cargo-mutants exit 4)".into()),
        5 => Err(
            "the diff given to `--in-diff` does not match the tree (cargo-mutants exit 5)".into(),
        ),
        6 => Err("the diff given to `--in-diff` is not a valid diff (cargo-mutants exit 6)".into()),
        c => Err(format!("cargo-mutants failed (exit {c})")),
    }
}

/// cargo-mutants' `outcomes.json`: each mutant's scenario and summary.
pub fn cargo_mutants(json: &str) -> Result<Read, String> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| format!("cargo-mutants' outcomes.json is not JSON: {e}"))?;
    let outcomes = v
        .get("outcomes")
        .and_then(|o| o.as_array())
        .ok_or("cargo-mutants' outcomes.json has no `outcomes` list")?;
    let mut read = Read::default();
    for o in outcomes {
        let Some(mutant) = o.get("scenario").and_then(|s| s.get("Mutant")) else {
            continue; // the baseline
        };
        read.made += 1;
        match o.get("summary").and_then(|s| s.as_str()).unwrap_or("") {
            "CaughtMutant" => read.totals.killed += 1,
            "MissedMutant" => {
                read.totals.survived += 1;
                read.survivors.push(cargo_survivor(mutant));
            }
            "Timeout" => read.totals.timeout += 1,
            "Unviable" => read.totals.unviable += 1,
            _ => {}
        }
    }
    Ok(read)
}

fn cargo_survivor(mutant: &serde_json::Value) -> Survivor {
    let text = |k: &str| mutant.get(k).and_then(|v| v.as_str()).unwrap_or("");
    let line = mutant
        .pointer("/span/start/line")
        .and_then(|l| l.as_u64())
        .unwrap_or(0) as usize;
    let function = mutant
        .pointer("/function/function_name")
        .and_then(|f| f.as_str())
        .unwrap_or("");
    let name = text("name");
    // `name` reads `src/lib.rs:2:5: replace add -> i32 with 0`: the part after the place.
    let mutation = match name.split_once(": ") {
        Some((place, what)) if place.contains(':') => what.to_string(),
        _ if !name.is_empty() => name.to_string(),
        _ => format!("replace {} in {function}", text("replacement")),
    };
    Survivor {
        file: text("file").to_string(),
        line,
        mutation,
    }
}

/// How mutmut's status words count: killed (and a crash), survived (and no test reaching it),
/// timeout (and suspicious), unviable (caught by the type checker); skipped and unchecked
/// mutants count for nothing.
fn mutmut_status(totals: &mut Totals, status: &str) -> bool {
    match status {
        "killed" | "segfault" => totals.killed += 1,
        "survived" | "no tests" => {
            totals.survived += 1;
            return true;
        }
        "timeout" | "suspicious" => totals.timeout += 1,
        "caught by type check" => totals.unviable += 1,
        _ => {}
    }
    false
}

/// mutmut's output: `mutmut results --all true` lines (`    name: status`) and, for each
/// survivor, a `mutmut show` block (`# name: status`, then the function's diff). `def_line`
/// gives the line of a function (its class, its name) in a file of the final tree.
pub fn mutmut(output: &str, def_line: &dyn Fn(&str, Option<&str>, &str) -> usize) -> Read {
    let mut read = Read::default();
    let mut survivors: Vec<String> = Vec::new();
    let lines: Vec<&str> = output.lines().collect();
    // The results come first; the show blocks after them.
    let first_block = lines
        .iter()
        .position(|l| l.starts_with("# "))
        .unwrap_or(lines.len());
    for l in &lines[..first_block] {
        if !l.starts_with("    ") {
            continue;
        }
        let Some((name, status)) = l.trim().rsplit_once(": ") else {
            continue;
        };
        if !name.contains("__mutmut_") {
            continue;
        }
        read.made += 1;
        if mutmut_status(&mut read.totals, status.trim()) {
            survivors.push(name.to_string());
        }
    }
    for name in survivors {
        let block = show_block(&lines, &name);
        read.survivors
            .push(mutmut_survivor(&name, &block, def_line));
    }
    read
}

/// The lines of the `mutmut show` block of mutant `name` (empty when it was not shown).
fn show_block<'a>(lines: &[&'a str], name: &str) -> Vec<&'a str> {
    let header = format!("# {name}: ");
    let Some(at) = lines.iter().position(|l| l.starts_with(&header)) else {
        return Vec::new();
    };
    lines[at + 1..]
        .iter()
        .take_while(|l| !l.starts_with("# "))
        .copied()
        .collect()
}

/// A mutmut mutant's class and function from its name: `calc.x_add__mutmut_1` is `add`,
/// `calc.xǁKǁm__mutmut_2` is `K.m`.
fn mutmut_function(name: &str) -> (Option<String>, String) {
    let mangled = name.split("__mutmut_").next().unwrap_or(name);
    let last = mangled.rsplit('.').next().unwrap_or(mangled);
    if let Some(rest) = last.strip_prefix("xǁ") {
        let mut parts = rest.split('ǁ');
        let class = parts.next().unwrap_or("").to_string();
        let method = parts.next().unwrap_or("").to_string();
        return (Some(class), method);
    }
    (None, last.strip_prefix("x_").unwrap_or(last).to_string())
}

fn mutmut_survivor(
    name: &str,
    block: &[&str],
    def_line: &dyn Fn(&str, Option<&str>, &str) -> usize,
) -> Survivor {
    let file = block
        .iter()
        .find_map(|l| l.strip_prefix("+++ "))
        .unwrap_or("")
        .trim()
        .to_string();
    let (class, function) = mutmut_function(name);
    // The diff is of the function alone: `@@ -a,b` counts from its `def` line.
    let mut offset = 0;
    let mut mutation = String::new();
    let mut in_hunk = false;
    for l in block {
        if let Some(h) = l.strip_prefix("@@ -") {
            let start: usize = h
                .split([',', ' '])
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            offset = start.saturating_sub(1);
            in_hunk = true;
        } else if in_hunk && l.starts_with('+') && !l.starts_with("+++") {
            mutation = l[1..].trim().to_string();
            break;
        } else if in_hunk && l.starts_with(' ') {
            offset += 1;
        }
    }
    let start = def_line(&file, class.as_deref(), &function);
    let what = if mutation.is_empty() {
        name.to_string()
    } else {
        format!("{function}: {mutation}")
    };
    Survivor {
        file,
        line: start.max(1) + offset,
        mutation: what,
    }
}

/// The 1-based line of `def function` (inside `class` when given) in Python `text`; 1 when
/// not found.
pub fn python_def_line(text: &str, class: Option<&str>, function: &str) -> usize {
    let def = |l: &str| {
        let t = l.trim_start();
        let t = t.strip_prefix("async ").unwrap_or(t);
        t.strip_prefix("def ")
            .is_some_and(|r| r.starts_with(function) && r[function.len()..].starts_with('('))
    };
    let lines: Vec<&str> = text.lines().collect();
    let from = class
        .and_then(|c| {
            lines.iter().position(|l| {
                l.strip_prefix("class ").is_some_and(|r| {
                    r.starts_with(c) && !r[c.len()..].starts_with(char::is_alphanumeric)
                })
            })
        })
        .unwrap_or(0);
    lines[from..]
        .iter()
        .position(|l| def(l))
        .map_or(1, |i| from + i + 1)
}

/// StrykerJS's JSON report: every file's mutants with their status. Survived and NoCoverage are
/// survivors; CompileError and RuntimeError are unviable; Ignored and Pending count for nothing.
pub fn stryker(json: &str) -> Result<Read, String> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| format!("Stryker's JSON report is not JSON: {e}"))?;
    let files = v
        .get("files")
        .and_then(|f| f.as_object())
        .ok_or("Stryker's JSON report has no `files`")?;
    let mut read = Read::default();
    for (file, f) in files {
        let mutants = f.get("mutants").and_then(|m| m.as_array());
        for m in mutants.into_iter().flatten() {
            let text = |k: &str| m.get(k).and_then(|v| v.as_str()).unwrap_or("");
            read.made += 1;
            match text("status") {
                "Killed" => read.totals.killed += 1,
                "Survived" | "NoCoverage" => {
                    read.totals.survived += 1;
                    let line = m
                        .pointer("/location/start/line")
                        .and_then(|l| l.as_u64())
                        .unwrap_or(0) as usize;
                    let replacement = text("replacement");
                    read.survivors.push(Survivor {
                        file: file.clone(),
                        line,
                        mutation: format!("{}: {}", text("mutatorName"), replacement),
                    });
                }
                "Timeout" => read.totals.timeout += 1,
                "CompileError" | "RuntimeError" => read.totals.unviable += 1,
                _ => {}
            }
        }
    }
    read.survivors
        .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok(read)
}

#[cfg(test)]
#[path = "outcomes_tests.rs"]
mod tests;
