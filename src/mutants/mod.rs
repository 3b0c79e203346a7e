//! Proof with teeth: the goal's change under mutation. Which hunks of the goal's code a
//! reversion leaves green ([`hunks`]), which tool mutates which pins' code ([`tools`]), each
//! tool's outputs read as documented ([`outcomes`]), and the `mutants` record's totals, score
//! and what `goal done` decides of them. Pure.

pub mod functions;
pub mod hunks;
pub mod outcomes;
pub mod tools;

use serde::{Deserialize, Serialize};

/// A mutant no acceptance pin noticed: where, and what was changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Survivor {
    pub file: String,
    pub line: usize,
    pub mutation: String,
}

impl Survivor {
    pub fn describe(&self) -> String {
        format!("{}:{}: {}", self.file, self.line, self.mutation)
    }
}

/// A hunk of the goal's code whose reversion leaves every acceptance pin green.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unneeded {
    pub file: String,
    pub line: usize,
}

impl Unneeded {
    pub fn describe(&self) -> String {
        format!("unneeded-change {}:{}", self.file, self.line)
    }
}

/// How many mutants each outcome had.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub killed: u64,
    pub survived: u64,
    pub timeout: u64,
    pub unviable: u64,
}

impl Totals {
    pub fn add(&mut self, other: Totals) {
        self.killed += other.killed;
        self.survived += other.survived;
        self.timeout += other.timeout;
        self.unviable += other.unviable;
    }

    /// killed / (killed + survived); None ("n/a", passing) when no mutant was judged.
    pub fn score(&self) -> Option<f64> {
        let judged = self.killed + self.survived;
        (judged > 0).then(|| {
            let raw = self.killed as f64 / judged as f64;
            (raw * 10_000.0).round() / 10_000.0
        })
    }
}

/// One tool's run over the goal's change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRun {
    /// `cargo-mutants`, `mutmut` or `stryker`.
    pub tool: String,
    pub exit_code: i32,
    #[serde(flatten)]
    pub totals: Totals,
    pub duration_ms: u64,
    /// How many of its mutants ran and how many the changed functions have.
    #[serde(flatten)]
    pub sample: Sample,
}

/// How many mutants of the changed functions ran (`sampled`) of how many there are (`total`):
/// at most [`functions::SAMPLE_MAX`], those on changed lines first. Both absent in a record made
/// before they were counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

impl Sample {
    /// All `n` mutants ran.
    pub fn all(n: u64) -> Sample {
        Sample {
            sampled: Some(n),
            total: Some(n),
        }
    }

    pub fn add(&mut self, other: Sample) {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.sampled = sum(self.sampled, other.sampled);
        self.total = sum(self.total, other.total);
    }

    /// `12 mutants of the changed functions` or `200 of 480 mutants of the changed functions
    /// (a sample)`; None when not counted.
    pub fn text(&self) -> Option<String> {
        let (sampled, total) = (self.sampled?, self.total?);
        Some(if sampled < total {
            format!("{sampled} of {total} mutants of the changed functions run (an even sample)")
        } else {
            format!("{total} mutant(s) of the changed functions")
        })
    }
}

/// A tool the goal's change needs that is not installed, with the command that installs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    pub tool: String,
    pub install: String,
}

impl Missing {
    pub fn describe(&self) -> String {
        format!("{} is not installed: `{}`", self.tool, self.install)
    }
}

/// What a `mutants` record holds (its `mutants` key): the hunk check and each tool's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mutation {
    /// Reversions made by the hunk check.
    pub hunks: usize,
    pub unneeded: Vec<Unneeded>,
    pub tools: Vec<ToolRun>,
    #[serde(flatten)]
    pub totals: Totals,
    /// How many mutants of the changed functions ran, of how many (every tool's summed).
    #[serde(flatten)]
    pub sample: Sample,
    /// killed / (killed + survived); null is "n/a" (no mutant: passing).
    pub score: Option<f64>,
    pub survivors: Vec<Survivor>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<Missing>,
    /// What was not checked, and why ("mutants: not applicable for this pin `…`").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The tools that ran but whose results could not be read (they crashed, or wrote no
    /// report): nothing they were to check is known, so the gate refuses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// Where the goal's change tells a mutation tool to skip code (a suppression it added, a tool
    /// configuration it changed): code hidden from its mutants, so the gate refuses.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<String>,
    /// The changed files of a language no mutation tool here reads (Go, C, shell, …): only the
    /// reversion of each change judged them, no mutant did. Shown on every surface as
    /// `mutation-unchecked`, never refusing (the same as a pin a tool does not run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<String>,
}

// The score is a finite number or null, never NaN.
impl Eq for Mutation {}

impl Mutation {
    /// The score as people read it: `0.75` or `n/a`.
    pub fn score_text(&self) -> String {
        match self.score {
            Some(s) => format!("{s:.2}"),
            None => "n/a".into(),
        }
    }

    /// Why `goal done` in `gate` mode refuses this result under `min`, one reason a line (empty:
    /// it passes).
    pub fn refusals(&self, min: f64) -> Vec<String> {
        let mut out: Vec<String> = self.unneeded.iter().map(Unneeded::describe).collect();
        for m in &self.missing {
            out.push(format!("mutants: {}", m.describe()));
        }
        for why in &self.failed {
            out.push(format!("mutants: {why}: its mutants are unknown"));
        }
        for at in &self.suppressed {
            out.push(format!(
                "mutants: the goal's change hides code from the mutation tools at {at}: remove it, the change's mutants must be killed by its tests"
            ));
        }
        if let Some(score) = self.score.filter(|s| *s < min) {
            let names: Vec<String> = self.survivors.iter().map(Survivor::describe).collect();
            out.push(format!(
                "mutation score {score:.2} is below {min}: {} survived ({})",
                self.totals.survived,
                names.join("; ")
            ));
        }
        out
    }

    /// One line for people: `score 0.75 (3 killed, 1 survived, 0 timeout, 0 unviable), 2 hunks
    /// checked, 1 unneeded`.
    pub fn line(&self) -> String {
        let t = self.totals;
        let sample = self
            .sample
            .text()
            .map(|s| format!("; {s}"))
            .unwrap_or_default();
        let unchecked = if self.unchecked.is_empty() {
            String::new()
        } else {
            format!("; {}", self.unchecked_text())
        };
        format!(
            "score {} ({} killed, {} survived, {} timeout, {} unviable){sample}; {} change(s) reverted, {} unneeded{unchecked}",
            self.score_text(),
            t.killed,
            t.survived,
            t.timeout,
            t.unviable,
            self.hunks,
            self.unneeded.len()
        )
    }

    /// `mutation-unchecked: calc.go (no mutation tool for its language)`: the code no mutant
    /// tested, for the line every surface shows.
    pub fn unchecked_text(&self) -> String {
        format!(
            "mutation-unchecked: {} (no mutation tool for its language: only the reversion of each change judged it)",
            self.unchecked.join(", ")
        )
    }
}

/// What status, report, audit and the adapters show of the goal's last `mutants` record.
#[derive(Debug, Clone, Serialize)]
pub struct MutationView {
    pub record: String,
    /// The tree it was made on (without the goal folder).
    pub tree: String,
    /// Made on the working tree as it is now (false: the code changed since).
    pub current: bool,
    #[serde(flatten)]
    pub result: Mutation,
}

impl MutationView {
    /// `Mutation: score 0.75 (…) — record abc123 on this tree` for people.
    pub fn line(&self) -> String {
        let place = if self.current {
            "on this tree"
        } else {
            "on another tree: the code changed since (`goal verify --mutants`)"
        };
        format!(
            "Mutation: {} — record {} {place}",
            self.result.line(),
            self.record
        )
    }
}

/// What a survivor means, for the agent: a test to write, never a test to weaken.
pub const SURVIVOR_MEANS: &str = "a surviving mutant is a change to your code that no acceptance test noticed: write a test that fails on it (never weaken a test); an unneeded change is code no test needs: test it or remove it";

#[cfg(test)]
mod tests {
    use super::*;

    fn mutation(killed: u64, survived: u64, unneeded: usize) -> Mutation {
        Mutation {
            hunks: 2,
            unneeded: (0..unneeded)
                .map(|i| Unneeded {
                    file: "src/lib.rs".into(),
                    line: i + 1,
                })
                .collect(),
            tools: Vec::new(),
            totals: Totals {
                killed,
                survived,
                ..Totals::default()
            },
            score: Totals {
                killed,
                survived,
                ..Totals::default()
            }
            .score(),
            sample: Sample::default(),
            survivors: (0..survived)
                .map(|_| Survivor {
                    file: "src/lib.rs".into(),
                    line: 3,
                    mutation: "replace + with -".into(),
                })
                .collect(),
            missing: Vec::new(),
            notes: Vec::new(),
            failed: Vec::new(),
            suppressed: Vec::new(),
            unchecked: Vec::new(),
        }
    }

    #[test]
    fn the_score_is_killed_over_judged_and_na_without_mutants() {
        let cases: &[(u64, u64, Option<f64>)] = &[
            (3, 1, Some(0.75)),
            (0, 0, None),
            (0, 2, Some(0.0)),
            (2, 1, Some(0.6667)),
        ];
        for (killed, survived, want) in cases {
            let t = Totals {
                killed: *killed,
                survived: *survived,
                timeout: 5,
                unviable: 7,
            };
            assert_eq!(t.score(), *want, "{killed}/{survived}");
        }
    }

    #[test]
    fn the_gate_refuses_below_the_score_and_on_an_unneeded_change() {
        let cases: &[(Mutation, f64, usize)] = &[
            (mutation(4, 1, 0), 0.8, 0),
            (mutation(3, 1, 0), 0.8, 1),
            (mutation(0, 0, 0), 0.8, 0),
            (mutation(5, 0, 1), 0.8, 1),
            (mutation(1, 1, 2), 0.5, 2),
        ];
        for (m, min, want) in cases {
            assert_eq!(m.refusals(*min).len(), *want, "{m:?} {min}");
        }
        // A tool whose results cannot be read leaves its mutants unknown: refused, never passed.
        let crashed = Mutation {
            failed: vec!["cargo-mutants (exit 4): no outcomes.json".into()],
            ..mutation(0, 0, 0)
        };
        let why = crashed.refusals(0.8);
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(why[0].contains("its mutants are unknown"), "{why:?}");
        let why = mutation(1, 1, 0).refusals(0.8).join("\n");
        assert!(why.contains("src/lib.rs:3: replace + with -"), "{why}");
    }

    #[test]
    fn the_record_says_how_many_mutants_were_sampled_of_how_many() {
        let mut m = mutation(3, 1, 0);
        m.sample.add(Sample {
            sampled: Some(200),
            total: Some(480),
        });
        m.sample.add(Sample::all(5));
        assert_eq!(
            m.sample,
            Sample {
                sampled: Some(205),
                total: Some(485)
            }
        );
        assert!(
            m.line()
                .contains("; 205 of 485 mutants of the changed functions run (an even sample);"),
            "{}",
            m.line()
        );
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(
            (json["sampled"].as_u64(), json["total"].as_u64()),
            (Some(205), Some(485))
        );
        assert_eq!(json["killed"], 3, "{json}");
        // A record made before the sample was counted reads as it was, and writes as it was.
        let mut old = json.clone();
        old.as_object_mut().unwrap().remove("sampled");
        old.as_object_mut().unwrap().remove("total");
        let read: Mutation = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(read.sample, Sample::default());
        assert_eq!(serde_json::to_value(&read).unwrap(), old);
        assert!(!read.line().contains("mutants of the changed functions"));
        let all = Mutation {
            sample: Sample::all(7),
            ..mutation(7, 0, 0)
        };
        assert!(
            all.line()
                .contains("; 7 mutant(s) of the changed functions;")
        );
    }
}
