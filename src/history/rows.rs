//! The rows of `goal log`, the runs they show, their texts, and the sink they are streamed to.

use serde::Serialize;

use crate::error::Result;
use crate::stagnation::Signals;
use crate::surface::weaken::Finding;
use crate::usage::Usage;

/// One row of `goal log`: an iteration of a goal.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub iteration: u64,
    pub commit: String,
    pub date: String,
    pub passing: usize,
    pub total: usize,
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
    pub summary: String,
    pub evidence: Vec<String>,
    pub flags: Vec<String>,
    pub stagnation: Signals,
    pub status: String,
    /// The goal this row belongs to (useful with `--all`).
    pub goal: String,
    /// Criteria removed or materially reworded by this row's commits, whoever made them.
    pub material: Vec<MaterialEntry>,
    /// The `goal run` that made this iteration (its `Goal-Run` trailer), if one did.
    pub run: Option<String>,
    /// The agent of that run that made it (`Goal-Run: <run id> agent=<name>`).
    pub agent: Option<String>,
    /// What the run's agent CLI reported using, summed over this row's `Goal-Usage` trailers
    /// (null when none has one).
    pub usage: Option<Usage>,
    /// The row of an iteration (not a completion, a block or a hand-made commit).
    #[serde(skip)]
    pub is_iteration: bool,
    /// Weakening findings this row's commits made to the test surface (each commit against its
    /// parent), whoever made them.
    pub tests_weakened: Vec<WeakenedEntry>,
    /// Findings on the tests that only explain (a rename, a rewritten assertion, a moved test:
    /// judged by the runs of `goal done`, never refusing on their text), flagged `tests-changed`;
    /// with what a completion's exams showed (`Goal-Tests-Changed` trailers).
    pub tests_changed: Vec<WeakenedEntry>,
    pub exams_shown: Vec<String>,
    /// The goal's change under mutation on this row's code when a `mutants` record of it
    /// was committed with it (flagged `mutants`, or `mutants-survived`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<crate::mutants::MutationView>,
    /// The findings this row's commit records as accepted (`Goal-Tests-Weakened` trailers of a
    /// completion made with `goal done --confirm`): `<kind> <file>:<line> <test>`.
    pub tests_weakened_confirmed: Vec<String>,
}

/// One `goal run` as a goal's rows show it: the iterations it made, the agent of each, and what
/// its agents reported using (the sum of its rows' `Goal-Usage`; null when none was recorded).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSummary {
    pub run: String,
    pub iterations: Vec<RunIteration>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RunIteration {
    pub iteration: u64,
    /// Null for a run made before `goal run` recorded its agent.
    pub agent: Option<String>,
}

/// The runs of these rows, in the order they first appear. Pure.
pub fn runs(rows: &[Row]) -> Vec<RunSummary> {
    let mut out: Vec<RunSummary> = Vec::new();
    for row in rows {
        let Some(id) = &row.run else {
            continue;
        };
        let i = match out.iter().position(|r| r.run == *id) {
            Some(i) => i,
            None => {
                out.push(RunSummary {
                    run: id.clone(),
                    iterations: Vec::new(),
                    usage: None,
                });
                out.len() - 1
            }
        };
        let run = &mut out[i];
        if row.is_iteration
            && !run
                .iterations
                .iter()
                .any(|it| it.iteration == row.iteration)
        {
            run.iterations.push(RunIteration {
                iteration: row.iteration,
                agent: row.agent.clone(),
            });
        }
        if let Some(u) = row.usage {
            run.usage = Some(run.usage.map_or(u, |r| r.plus(u)));
        }
    }
    out
}

impl RunSummary {
    /// `run <id>: iterations 1-2 claude, 3 pi · 1520 tokens · $0.0123`.
    pub fn line(&self) -> String {
        let mut groups: Vec<(u64, u64, Option<&str>)> = Vec::new();
        for it in &self.iterations {
            match groups.last_mut() {
                Some((_, last, agent))
                    if *last + 1 == it.iteration && *agent == it.agent.as_deref() =>
                {
                    *last = it.iteration;
                }
                _ => groups.push((it.iteration, it.iteration, it.agent.as_deref())),
            }
        }
        let made = groups
            .iter()
            .map(|(a, b, agent)| {
                let span = if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                };
                match agent {
                    Some(name) => format!("{span} {name}"),
                    None => span,
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut text = format!("run {}: ", self.run);
        text.push_str(&match self.iterations.len() {
            0 => "no iteration".to_string(),
            1 => format!("iteration {made}"),
            _ => format!("iterations {made}"),
        });
        text.push_str(&usage_text(self.usage.as_ref()));
        text
    }
}

/// ` · 1520 tokens (1200 in, 320 out) · $0.0123`, or ` · no usage recorded`.
pub fn usage_text(usage: Option<&Usage>) -> String {
    let Some(u) = usage else {
        return " · no usage recorded".to_string();
    };
    let mut text = String::new();
    if let Some(tokens) = u.tokens() {
        text.push_str(&format!(
            " · {tokens} tokens ({} in, {} out)",
            u.input_tokens.unwrap_or(0),
            u.output_tokens.unwrap_or(0)
        ));
    }
    if let Some(cost) = u.cost_usd {
        text.push_str(&format!(" · ${cost:.4}"));
    }
    text
}

/// A weakening finding, with the commit whose diff made it.
#[derive(Debug, Clone, Serialize)]
pub struct WeakenedEntry {
    pub commit: String,
    #[serde(flatten)]
    pub finding: Finding,
}

/// A material change of a criterion, as `goal log` and `goal done` list it.
#[derive(Debug, Clone, Serialize)]
pub struct MaterialEntry {
    pub commit: String,
    pub number: usize,
    pub old: String,
    /// None when the criterion was removed.
    pub new: Option<String>,
    pub reason: String,
    /// The `Goal-Material-Change` trailer of the commit, when it has one.
    pub recorded: Option<String>,
}

impl MaterialEntry {
    /// The change in words, once: `criterion N "old" → "new" (reason; recorded with --confirm)`.
    /// (The recorded trailer says the same change again, so only whether there is one is said.)
    pub fn describe(&self) -> String {
        let new = match &self.new {
            Some(n) => format!("\"{n}\""),
            None => "removed".into(),
        };
        let recorded = if self.recorded.is_some() {
            "recorded with --confirm"
        } else {
            "not recorded with --confirm"
        };
        if self.number == 0 {
            // Not a criterion: the settings that judge the goal (test surface, mutants).
            return format!(
                "settings {} → {} ({}; {recorded})",
                self.old,
                self.new.as_deref().unwrap_or("the defaults"),
                self.reason
            );
        }
        format!(
            "criterion {} \"{}\" → {new} ({}; {recorded})",
            self.number, self.old, self.reason
        )
    }
}

impl Row {
    pub(super) fn flag(&mut self, flag: &str) {
        if !self.flags.iter().any(|f| f == flag) {
            self.flags.push(flag.to_string());
        }
    }
}

/// Where `goal log` sends what it finds, as it finds it (oldest first): nothing is kept.
pub trait Sink {
    fn goal_start(&mut self, goal: &str) -> Result<()>;
    fn row(&mut self, row: &Row) -> Result<()>;
    /// `status`: the status of the goal's last commit; `unmarked`: commits that deleted the goal
    /// files without a `Goal-Status: complete|abandoned` trailer.
    fn goal_end(&mut self, status: &str, unmarked: &[String]) -> Result<()>;
}

/// A goal's status as every surface shows it: a status that a commit made without `goal` wrote
/// (say `status: complete` committed with `--no-verify`) is not one `goal` agreed to.
pub fn status_text(status: &str, hand_made: bool) -> String {
    if hand_made {
        format!("{status} (hand-made, unverified)")
    } else {
        status.to_string()
    }
}

/// Braille-free sparkline of passing counts (▁▂▃▄▅▆▇█), scaled to the largest total.
pub fn sparkline(rows: &[(usize, usize)]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = rows
        .iter()
        .map(|&(passing, total)| total.max(passing))
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|&(passing, _)| {
            (passing * (BARS.len() - 1) + max / 2)
                .checked_div(max)
                .map_or(BARS[0], |i| BARS[i.min(BARS.len() - 1)])
        })
        .collect()
}
