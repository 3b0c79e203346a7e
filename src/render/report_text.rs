//! The goal's report as plain text and as GitHub Markdown (`goal report`, `goal report
//! --markdown`, `goal done --report`), made from what [`crate::ops::report::build`] gathered. Pure.

use crate::audit;
use crate::history::MaterialEntry;
use crate::ops::report::{CriterionRow, Report};
use crate::pin;
use crate::summary::TestCounts;

fn duration(seconds: i64) -> String {
    format!("{}h {:02}m", seconds / 3600, (seconds % 3600) / 60)
}

fn counts_text(tests: Option<TestCounts>, exit_code: Option<i32>) -> String {
    match (tests, exit_code) {
        (Some(t), _) if t.ignored > 0 => format!(
            "{} passed, {} failed, {} ignored",
            t.passed, t.failed, t.ignored
        ),
        (Some(t), _) => format!("{} passed, {} failed", t.passed, t.failed),
        (None, Some(code)) => format!("check, exit {code}"),
        (None, None) => "—".into(),
    }
}

fn tests_text(c: &CriterionRow) -> String {
    counts_text(c.tests, c.exit_code)
}

/// The red → green of a criterion: its witness failing on the code before the goal, then its
/// deciding record; a guard or an unpinned criterion says so.
pub(crate) fn red_green(c: &CriterionRow) -> String {
    let green = match &c.command {
        Some(_) => tests_text(c),
        None => "not proven".into(),
    };
    match (c.kind, c.red) {
        ("guard", _) if c.command.is_none() => "guard: not proven".into(),
        ("guard", _) => match c.base_exit_code {
            Some(0) => format!(
                "guard: green on the base ({}) and stays green ({green})",
                counts_text(c.base_tests, c.base_exit_code)
            ),
            Some(_) => format!(
                "guard: red on the base ({}) → green ({green})",
                counts_text(c.base_tests, c.base_exit_code)
            ),
            None => format!("guard: green ({green}); no run on the base recorded"),
        },
        ("unpinned", _) | (_, None) => format!("unpinned: no red run ({green})"),
        (_, Some("witnessed")) => format!(
            "red {} ({}) → green ({green})",
            c.red_evidence.as_deref().unwrap_or(""),
            counts_text(c.red_tests, c.red_exit_code)
        ),
        (_, Some(state)) => format!("no red witness ({state}) → green ({green})"),
    }
}

/// Whether a finding is a weakening, as `goal log` flags it (`tests-weakened`): one that refuses
/// on its text, or here, or was accepted with --confirm. The others are changes the runs judge.
fn weakens(f: &audit::WeakenedFinding) -> bool {
    f.refuses || f.confirmed || f.finding.kind.refuses()
}

fn weakened_line(f: &audit::WeakenedFinding) -> String {
    format!(
        "{} {} {}{}",
        code(&format!("{}:{}", f.finding.file, f.finding.line)),
        f.finding.kind,
        code(&f.finding.test),
        if f.confirmed {
            " (recorded with --confirm)"
        } else if f.refuses {
            " — not recorded with --confirm: `goal done` refuses this"
        } else {
            ""
        }
    )
}

/// A table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// A code span that holds any text.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {} ``", text.replace('\n', " "))
    } else {
        format!("`{}`", text.replace('\n', " "))
    }
}

/// A run line with its id as code: `` `<id>`: iterations … ``.
fn code_run(line: &str) -> String {
    match line.strip_prefix("run ").and_then(|l| l.split_once(": ")) {
        Some((id, rest)) => format!("{}: {rest}", code(id)),
        None => line.to_string(),
    }
}

fn material_line(m: &MaterialEntry) -> String {
    format!("{} in {}", m.describe(), audit::short_id(&m.commit))
}

/// The "Mutation" section: the score and totals, each unneeded change, each survivor with
/// file:line and the mutation, each missing tool, failed tool, hidden code and note.
fn mutation_lines(m: &crate::ops::mutants::MutationView) -> Vec<String> {
    let r = &m.result;
    let mut out = vec![format!(
        "{} — record {}{}",
        r.line(),
        code(&m.record),
        if m.current {
            ""
        } else {
            " (made on an earlier tree)"
        }
    )];
    out.extend(r.unneeded.iter().map(|u| code(&u.describe())));
    out.extend(r.survivors.iter().map(|s| {
        format!(
            "survived {} {}",
            code(&format!("{}:{}", s.file, s.line)),
            code(&s.mutation)
        )
    }));
    out.extend(r.missing.iter().map(|t| t.describe()));
    out.extend(
        r.failed
            .iter()
            .map(|f| format!("{f}: its mutants are unknown")),
    );
    out.extend(
        r.suppressed
            .iter()
            .map(|at| format!("code hidden from the tools at {at}")),
    );
    if !r.unchecked.is_empty() {
        out.push(r.unchecked_text());
    }
    out.extend(r.notes.iter().cloned());
    out
}

pub fn markdown(r: &Report) -> String {
    let mut out = Vec::new();
    out.push(format!("## Goal: {}", r.goal.replace('\n', " ")));
    out.push(String::new());
    out.push(format!(
        "**Status:** {} · **Iterations:** {} · **Time spent:** {} · **Retries:** {} · **Escalations:** {} · **Stagnation episodes:** {} · **Files changed:** {} (+{} −{})",
        crate::history::status_text(&r.status, r.hand_made_status),
        r.iterations,
        duration(r.elapsed_s),
        r.retries,
        r.escalations,
        r.stagnation_episodes,
        r.files_changed,
        r.insertions,
        r.deletions
    ));
    out.push(String::new());
    out.push("| # | Criterion | Command | Tests | Red → green | Evidence | Commit |".into());
    out.push("|---|---|---|---|---|---|---|".into());
    out.extend(r.criteria.iter().map(criterion_row));
    if r.criteria.iter().any(|c| c.command.is_some() && !c.pinned) {
        out.push(String::new());
        out.push(
            "⚠ unpinned: proven by a command the agent chose, not one pinned in the criterion."
                .into(),
        );
    }
    for (title, lines) in sections(r) {
        out.push(String::new());
        out.push(format!("### {title}"));
        out.push(String::new());
        if lines.is_empty() {
            out.push("None.".into());
        }
        out.extend(lines.into_iter().map(|l| format!("- {l}")));
    }
    out.push(String::new());
    out.push(format!(
        "Check it: `goal audit {}^..{} --rerun`",
        audit::short_id(&r.first_commit),
        audit::short_id(&r.last_commit)
    ));
    out.join("\n")
}

/// One criterion's row of the table.
fn criterion_row(c: &CriterionRow) -> String {
    let command = match &c.command {
        Some(argv) => {
            let mut text = code(&pin::render(argv));
            if !c.pinned {
                text.push_str(" ⚠ unpinned");
            }
            text
        }
        None => c
            .why
            .as_deref()
            .map(|w| format!("not proven: {w}"))
            .unwrap_or_else(|| "—".into()),
    };
    format!(
        "| {} | {} | {} | {} | {} | {} | {} |",
        c.number,
        cell(&c.text),
        cell(&command),
        tests_text(c),
        cell(&red_green(c)),
        c.evidence
            .as_deref()
            .map(code)
            .unwrap_or_else(|| "—".into()),
        c.commit
            .as_deref()
            .map(|id| code(&audit::short_id(id)))
            .unwrap_or_else(|| "—".into()),
    )
}

/// The report's sections after the table, in order, each a title and its lines ("None." when
/// it has none); the optional ones only when they have something to say.
pub(crate) fn sections(r: &Report) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    if !r.settings_text.is_empty() {
        out.push(("Settings (not the defaults)", r.settings_text.clone()));
    }
    out.push((
        "Material changes",
        r.material_changes.iter().map(material_line).collect(),
    ));
    // What refuses (or was accepted with --confirm); the rest are changes the runs judged.
    out.push((
        "Tests weakened",
        r.tests_weakened
            .iter()
            .filter(|f| weakens(f))
            .map(weakened_line)
            .collect(),
    ));
    if !r.tests_changed.is_empty() {
        out.push((
            "Tests changed (judged by the runs)",
            r.tests_changed.clone(),
        ));
    }
    if let Some(m) = &r.mutation {
        out.push(("Mutation", mutation_lines(m)));
    }
    out.push((
        "Hand-made commits",
        r.hand_made
            .iter()
            .map(|c| format!("{} {}", code(&audit::short_id(&c.commit)), c.subject))
            .collect(),
    ));
    if !r.problems.is_empty() {
        out.push(("Audit problems", r.problems.clone()));
    }
    out.push((
        "Clean-up findings",
        r.deslop
            .iter()
            .map(|f| {
                format!(
                    "{} {} — {}",
                    code(&format!("{}:{}", f.file, f.line)),
                    f.kind,
                    code(&f.text)
                )
            })
            .collect(),
    ));
    if !r.runs.is_empty() {
        out.push((
            "Runs",
            r.runs.iter().map(|run| code_run(&run.line())).collect(),
        ));
    }
    out
}

pub fn text(r: &Report) -> String {
    let mut out = vec![
        format!(
            "Goal: {} ({})",
            r.goal,
            crate::history::status_text(&r.status, r.hand_made_status)
        ),
        format!(
            "  iterations: {}  time spent: {}  retries: {}  escalations: {}  stagnation episodes: {}",
            r.iterations,
            duration(r.elapsed_s),
            r.retries,
            r.escalations,
            r.stagnation_episodes
        ),
        format!(
            "  files changed: {} (+{} -{})",
            r.files_changed, r.insertions, r.deletions
        ),
    ];
    for c in &r.criteria {
        let tick = if c.ticked { "[x]" } else { "[ ]" };
        out.push(format!("  {tick} {}. {}", c.number, c.text));
        match &c.command {
            Some(argv) => out.push(format!(
                "      evidence {} `{}` ({}) in {}{}",
                c.evidence.as_deref().unwrap_or(""),
                pin::render(argv),
                tests_text(c),
                c.commit.as_deref().map(audit::short_id).unwrap_or_default(),
                if c.pinned { "" } else { " — unpinned" }
            )),
            None => out.push(format!("      {}", c.why.as_deref().unwrap_or("open"))),
        }
        out.push(format!("      red → green: {}", red_green(c)));
    }
    for run in &r.runs {
        out.push(format!("  {}", run.line()));
    }
    for f in r.tests_weakened.iter().filter(|f| weakens(f)) {
        out.push(format!("  tests weakened: {}", weakened_line(f)));
    }
    for t in &r.tests_changed {
        out.push(format!("  tests changed: {t}"));
    }
    if let Some(m) = &r.mutation {
        out.push(format!("  {}", m.line()));
    }
    if !r.settings_text.is_empty() {
        out.push(format!(
            "  settings (not the defaults): {}",
            r.settings_text.join("; ")
        ));
    }
    for m in &r.material_changes {
        out.push(format!("  material change: {}", material_line(m)));
    }
    for c in &r.hand_made {
        out.push(format!(
            "  hand-made commit: {} {}",
            audit::short_id(&c.commit),
            c.subject
        ));
    }
    for p in &r.problems {
        out.push(format!("  audit problem: {p}"));
    }
    if r.deslop.is_empty() {
        out.push("  clean-up scan: nothing found".into());
    }
    for f in &r.deslop {
        out.push(format!("  {}:{}: {} — {}", f.file, f.line, f.kind, f.text));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report names the tests it did not run as verify, done and audit do: `ignored`.
    #[test]
    fn counts_read_as_every_other_surface_reads_them() {
        let t = |passed, failed, ignored| {
            Some(TestCounts {
                passed,
                failed,
                ignored,
            })
        };
        let cases = [
            (t(3, 0, 2), Some(0), "3 passed, 0 failed, 2 ignored"),
            (t(3, 1, 0), Some(1), "3 passed, 1 failed"),
            (None, Some(1), "check, exit 1"),
            (None, None, "—"),
        ];
        for (tests, code, want) in cases {
            assert_eq!(counts_text(tests, code), want, "{tests:?}");
        }
    }
}
