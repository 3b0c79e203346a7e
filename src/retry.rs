//! Backoff and the retry guard (seed `agent-retry-guard-pi`): pure rules over raw attempts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The backoff schedule of the seed's error-handling reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub initial: u64,
    pub factor: u64,
    pub max: u64,
    pub max_retries: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            initial: 30,
            factor: 2,
            max: 300,
            max_retries: 10,
        }
    }
}

impl Backoff {
    /// Delay before retry `n` (1-based): min(initial · factor^(n-1), max) seconds.
    pub fn delay(&self, n: u32) -> u64 {
        let mut delay = self.initial;
        for _ in 1..n {
            delay = delay.saturating_mul(self.factor);
            if delay >= self.max {
                break;
            }
        }
        delay.min(self.max)
    }

    /// Total delay of retries 1..=n.
    pub fn cumulative(&self, n: u32) -> u64 {
        (1..=n).map(|k| self.delay(k)).sum()
    }
}

/// A caller-declared attempt outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptOutcome {
    Success,
    Failure,
    NoProgress,
    Unknown,
}

impl AttemptOutcome {
    pub fn parse(text: &str) -> Option<AttemptOutcome> {
        Some(match text {
            "success" => AttemptOutcome::Success,
            "failure" => AttemptOutcome::Failure,
            "no_progress" => AttemptOutcome::NoProgress,
            "unknown" => AttemptOutcome::Unknown,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    pub outcome: AttemptOutcome,
    #[serde(rename = "strategyId", skip_serializing_if = "Option::is_none")]
    pub strategy_id: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(rename = "maxAttempts", skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u64>,
    #[serde(
        rename = "maxStrategyAttempts",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_strategy_attempts: Option<u64>,
}

/// retry.json: raw attempts and policy only, never a derived value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryState {
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    pub attempts: Vec<Attempt>,
    pub policy: Policy,
}

impl Default for RetryState {
    fn default() -> Self {
        RetryState {
            schema_version: 1,
            attempts: Vec::new(),
            policy: Policy::default(),
        }
    }
}

impl RetryState {
    /// Strict load: exactly the schema, schemaVersion 1, valid attempts and policy.
    pub fn parse(text: &str) -> Result<RetryState, String> {
        let state: RetryState = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if state.schema_version != 1 {
            return Err(format!(
                "schemaVersion is {}, expected 1",
                state.schema_version
            ));
        }
        for a in &state.attempts {
            if a.strategy_id
                .as_deref()
                .is_some_and(|s| s.trim().is_empty())
            {
                return Err("an attempt has a blank strategyId".into());
            }
        }
        validate_policy(&state.policy)?;
        Ok(state)
    }

    pub fn render(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Failures recorded in the current episode: `goal retry`'s counter.
    pub fn failures(&self) -> u32 {
        self.attempts
            .iter()
            .filter(|a| a.outcome == AttemptOutcome::Failure)
            .count() as u32
    }
}

fn validate_policy(policy: &Policy) -> Result<(), String> {
    for (key, value) in [
        ("maxAttempts", policy.max_attempts),
        ("maxStrategyAttempts", policy.max_strategy_attempts),
    ] {
        if value == Some(0) {
            return Err(format!("{key} must be an integer ≥ 1"));
        }
    }
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StrategyRun {
    #[serde(rename = "strategyId")]
    pub strategy_id: String,
    pub attempts: u64,
}

/// The verdict, with exactly these keys in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RetryVerdict {
    pub attempts: u64,
    #[serde(rename = "consecutiveFailures")]
    pub consecutive_failures: u64,
    #[serde(rename = "consecutiveNoProgress")]
    pub consecutive_no_progress: u64,
    #[serde(rename = "strategyRun", skip_serializing_if = "Option::is_none")]
    pub strategy_run: Option<StrategyRun>,
    #[serde(rename = "retryAllowed")]
    pub retry_allowed: bool,
}

fn trailing(attempts: &[Attempt], pred: impl Fn(&Attempt) -> bool) -> u64 {
    attempts.iter().rev().take_while(|a| pred(a)).count() as u64
}

/// Judge an episode under a policy.
pub fn judge(attempts: &[Attempt], policy: &Policy) -> RetryVerdict {
    let stalled = |a: &Attempt| {
        matches!(
            a.outcome,
            AttemptOutcome::Failure | AttemptOutcome::NoProgress
        )
    };
    let strategy_run = attempts.last().filter(|a| stalled(a)).and_then(|last| {
        let id = last.strategy_id.clone()?;
        let n = trailing(attempts, |a| {
            stalled(a) && a.strategy_id.as_deref() == Some(id.as_str())
        });
        Some(StrategyRun {
            strategy_id: id,
            attempts: n,
        })
    });
    let count = attempts.len() as u64;
    let retry_allowed = match attempts.last() {
        None => true,
        Some(last) if last.outcome == AttemptOutcome::Success => false,
        Some(_) => {
            policy.max_attempts.is_none_or(|max| count < max)
                && match (&strategy_run, policy.max_strategy_attempts) {
                    (Some(run), Some(max)) => run.attempts < max,
                    _ => true,
                }
        }
    };
    RetryVerdict {
        attempts: count,
        consecutive_failures: trailing(attempts, |a| a.outcome == AttemptOutcome::Failure),
        consecutive_no_progress: trailing(attempts, |a| a.outcome == AttemptOutcome::NoProgress),
        strategy_run,
        retry_allowed,
    }
}

/// Read a judge input `{"attempts": [...], "policy": {...}}`: unknown extra keys are ignored;
/// anything else off is `invalid_input`.
pub fn parse_judge_input(text: &str) -> Result<(Vec<Attempt>, Policy), String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Value::Object(map) = value else {
        return Err("expected a JSON object with an `attempts` array".into());
    };
    let Some(Value::Array(items)) = map.get("attempts") else {
        return Err("`attempts` must be an array".into());
    };
    let mut attempts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Value::Object(a) = item else {
            return Err(format!("attempts[{i}] must be an object"));
        };
        let outcome = match a.get("outcome") {
            Some(Value::String(s)) => AttemptOutcome::parse(s).ok_or_else(|| {
                format!("attempts[{i}].outcome `{s}` is not one of success, failure, no_progress, unknown")
            })?,
            _ => return Err(format!("attempts[{i}].outcome must be a string")),
        };
        let strategy_id = match a.get("strategyId") {
            None => None,
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(Value::String(_)) => return Err(format!("attempts[{i}].strategyId is blank")),
            Some(_) => return Err(format!("attempts[{i}].strategyId must be a string")),
        };
        attempts.push(Attempt {
            outcome,
            strategy_id,
        });
    }
    let policy = match map.get("policy") {
        None => Policy::default(),
        Some(Value::Object(p)) => Policy {
            max_attempts: limit(p.get("maxAttempts"), "maxAttempts")?,
            max_strategy_attempts: limit(p.get("maxStrategyAttempts"), "maxStrategyAttempts")?,
        },
        Some(_) => return Err("`policy` must be an object".into()),
    };
    Ok((attempts, policy))
}

fn limit(value: Option<&Value>, key: &str) -> Result<Option<u64>, String> {
    match value {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v >= 1 => Ok(Some(v)),
            _ => Err(format!("policy.{key} must be an integer ≥ 1")),
        },
        Some(_) => Err(format!("policy.{key} must be an integer ≥ 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_table_of_the_seed() {
        let b = Backoff::default();
        // retry → (delay s, cumulative minutes)
        let table = [
            (1, 30, 0.5),
            (2, 60, 1.5),
            (3, 120, 3.5),
            (4, 240, 7.5),
            (5, 300, 12.5),
            (6, 300, 17.5),
            (7, 300, 22.5),
            (8, 300, 27.5),
            (9, 300, 32.5),
            (10, 300, 37.5),
        ];
        for (n, delay, minutes) in table {
            assert_eq!(b.delay(n), delay, "retry {n}");
            assert_eq!(b.cumulative(n) as f64 / 60.0, minutes, "retry {n}");
        }
        assert_eq!(
            Backoff {
                initial: 1,
                factor: 3,
                max: 20,
                max_retries: 5
            }
            .delay(4),
            20
        );
        assert_eq!(Backoff { initial: 0, ..b }.delay(5), 0);
    }

    fn a(spec: &str) -> Vec<Attempt> {
        spec.split_whitespace()
            .map(|t| {
                let (o, s) = t
                    .split_once(':')
                    .map_or((t, None), |(o, s)| (o, Some(s.to_string())));
                let outcome = match o {
                    "S" => AttemptOutcome::Success,
                    "F" => AttemptOutcome::Failure,
                    "N" => AttemptOutcome::NoProgress,
                    _ => AttemptOutcome::Unknown,
                };
                Attempt {
                    outcome,
                    strategy_id: s,
                }
            })
            .collect()
    }

    #[test]
    fn judge_table() {
        // (attempts, maxAttempts, maxStrategyAttempts, expected verdict JSON)
        let cases: &[(&str, Option<u64>, Option<u64>, &str)] = &[
            (
                "",
                Some(1),
                Some(1),
                r#"{"attempts":0,"consecutiveFailures":0,"consecutiveNoProgress":0,"retryAllowed":true}"#,
            ),
            (
                "F F",
                None,
                None,
                r#"{"attempts":2,"consecutiveFailures":2,"consecutiveNoProgress":0,"retryAllowed":true}"#,
            ),
            (
                "F F F",
                Some(3),
                None,
                r#"{"attempts":3,"consecutiveFailures":3,"consecutiveNoProgress":0,"retryAllowed":false}"#,
            ),
            (
                "F F",
                Some(3),
                None,
                r#"{"attempts":2,"consecutiveFailures":2,"consecutiveNoProgress":0,"retryAllowed":true}"#,
            ),
            (
                "F S",
                None,
                None,
                r#"{"attempts":2,"consecutiveFailures":0,"consecutiveNoProgress":0,"retryAllowed":false}"#,
            ),
            (
                "N N F N",
                None,
                None,
                r#"{"attempts":4,"consecutiveFailures":0,"consecutiveNoProgress":1,"retryAllowed":true}"#,
            ),
            (
                "F:a N:a F:a",
                None,
                Some(3),
                r#"{"attempts":3,"consecutiveFailures":1,"consecutiveNoProgress":0,"strategyRun":{"strategyId":"a","attempts":3},"retryAllowed":false}"#,
            ),
            (
                "F:a F:b F:a",
                None,
                Some(2),
                r#"{"attempts":3,"consecutiveFailures":3,"consecutiveNoProgress":0,"strategyRun":{"strategyId":"a","attempts":1},"retryAllowed":true}"#,
            ),
            (
                "F:A F:a",
                None,
                Some(2),
                r#"{"attempts":2,"consecutiveFailures":2,"consecutiveNoProgress":0,"strategyRun":{"strategyId":"a","attempts":1},"retryAllowed":true}"#,
            ),
            (
                "F:a U:a F:a",
                None,
                None,
                r#"{"attempts":3,"consecutiveFailures":1,"consecutiveNoProgress":0,"strategyRun":{"strategyId":"a","attempts":1},"retryAllowed":true}"#,
            ),
            (
                "F:a S:a",
                None,
                Some(1),
                r#"{"attempts":2,"consecutiveFailures":0,"consecutiveNoProgress":0,"retryAllowed":false}"#,
            ),
            (
                "F:a U",
                None,
                Some(1),
                r#"{"attempts":2,"consecutiveFailures":0,"consecutiveNoProgress":0,"retryAllowed":true}"#,
            ),
            (
                "F:a F",
                None,
                Some(1),
                r#"{"attempts":2,"consecutiveFailures":2,"consecutiveNoProgress":0,"retryAllowed":true}"#,
            ),
            (
                "S",
                Some(5),
                None,
                r#"{"attempts":1,"consecutiveFailures":0,"consecutiveNoProgress":0,"retryAllowed":false}"#,
            ),
        ];
        for (spec, max, max_strategy, want) in cases {
            let policy = Policy {
                max_attempts: *max,
                max_strategy_attempts: *max_strategy,
            };
            let got = serde_json::to_string(&judge(&a(spec), &policy)).unwrap();
            assert_eq!(&got, want, "{spec:?} {max:?} {max_strategy:?}");
        }
    }

    #[test]
    fn strategy_ids_are_never_trimmed() {
        let attempts = vec![
            Attempt {
                outcome: AttemptOutcome::Failure,
                strategy_id: Some(" a".into()),
            },
            Attempt {
                outcome: AttemptOutcome::Failure,
                strategy_id: Some("a".into()),
            },
        ];
        assert_eq!(
            judge(&attempts, &Policy::default())
                .strategy_run
                .unwrap()
                .attempts,
            1
        );
    }

    #[test]
    fn judge_input_validation() {
        let ok: &[&str] = &[
            r#"{"attempts": []}"#,
            r#"{"attempts": [{"outcome": "failure", "strategyId": "x", "extra": 1}], "policy": {"maxAttempts": 2}, "more": true}"#,
            r#"{"attempts": [{"outcome": "unknown"}], "policy": {}}"#,
        ];
        for text in ok {
            assert!(parse_judge_input(text).is_ok(), "{text}");
        }
        let bad: &[&str] = &[
            "",
            "[]",
            r#"{}"#,
            r#"{"attempts": null}"#,
            r#"{"attempts": [{"outcome": "oops"}]}"#,
            r#"{"attempts": [{"outcome": null}]}"#,
            r#"{"attempts": [{}]}"#,
            r#"{"attempts": [{"outcome": "failure", "strategyId": "  "}]}"#,
            r#"{"attempts": [{"outcome": "failure", "strategyId": null}]}"#,
            r#"{"attempts": [], "policy": {"maxAttempts": 0}}"#,
            r#"{"attempts": [], "policy": {"maxAttempts": 1.5}}"#,
            r#"{"attempts": [], "policy": {"maxAttempts": "3"}}"#,
            r#"{"attempts": [], "policy": {"maxStrategyAttempts": null}}"#,
            r#"{"attempts": [], "policy": null}"#,
            r#"{"attempts": [3]}"#,
        ];
        for text in bad {
            assert!(parse_judge_input(text).is_err(), "{text}");
        }
    }

    #[test]
    fn state_loads_strictly() {
        assert!(
            RetryState::parse(
                r#"{"schemaVersion":1,"attempts":[{"outcome":"failure"}],"policy":{}}"#
            )
            .is_ok()
        );
        let bad = [
            r#"{"schemaVersion":2,"attempts":[],"policy":{}}"#,
            r#"{"schemaVersion":1,"attempts":[],"policy":{},"retryAllowed":true}"#,
            r#"{"schemaVersion":1,"attempts":[{"outcome":"failure","note":"x"}],"policy":{}}"#,
            r#"{"schemaVersion":1,"attempts":[]}"#,
            r#"{"schemaVersion":1,"attempts":[],"policy":{"maxAttempts":0}}"#,
            r#"not json"#,
        ];
        for text in bad {
            assert!(RetryState::parse(text).is_err(), "{text}");
        }
        let s = RetryState::default();
        assert_eq!(RetryState::parse(&s.render()).unwrap(), s);
    }

    #[test]
    fn outcome_words_and_the_failure_count() {
        // word → outcome, one line each: every arm of the parser decides a row.
        let table = [
            ("success", Some(AttemptOutcome::Success)),
            ("failure", Some(AttemptOutcome::Failure)),
            ("no_progress", Some(AttemptOutcome::NoProgress)),
            ("unknown", Some(AttemptOutcome::Unknown)),
            ("Failure", None),
            ("no-progress", None),
            ("", None),
        ];
        for (word, outcome) in table {
            assert_eq!(AttemptOutcome::parse(word), outcome, "{word:?}");
        }
        // Only failures count towards `goal retry`: 0, then 2 among 4 attempts.
        assert_eq!(RetryState::default().failures(), 0);
        let state = RetryState {
            attempts: a("F S F N U"),
            ..RetryState::default()
        };
        assert_eq!(state.failures(), 2);
    }
}
