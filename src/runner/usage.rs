//! What a turn cost, as the agent CLI reported it: tokens in and out and money, each `None` when
//! the CLI did not say (a reported 0 stays 0). Tokens are input plus output; cached input is left
//! out where the CLI reports it separately. One pure reader per CLI's format.

use std::sync::OnceLock;

use regex::Regex;

/// One turn's usage.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Input plus output tokens, when the CLI reported either.
    pub fn tokens(&self) -> Option<u64> {
        match (self.input_tokens, self.output_tokens) {
            (None, None) => None,
            (i, o) => Some(i.unwrap_or(0) + o.unwrap_or(0)),
        }
    }
}

/// What a preset's CLI reports of its usage, so that a budget it cannot measure is refused at
/// the start rather than ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reports {
    pub tokens: bool,
    pub cost: bool,
}

/// The usage a preset's CLI printed in one turn's output; `None` for a preset with no reader here.
pub fn usage(preset: &str, output: &str) -> Option<Usage> {
    match preset {
        "opencode" => Some(opencode(output)),
        "aider" => Some(aider(output)),
        _ => None,
    }
}

/// opencode `run --format json`: one `step_finish` event per model call, its `part.tokens`
/// (`input`, `output`, `reasoning`, and `cache.read`/`cache.write` apart) and `part.cost` (USD,
/// from the model's prices in the config; 0 when it has none), summed over the turn.
/// Reasoning tokens are output tokens.
pub fn opencode(output: &str) -> Usage {
    let mut usage = Usage::default();
    let add_u = |slot: &mut Option<u64>, v: &serde_json::Value| {
        if let Some(n) = v.as_u64() {
            *slot = Some(slot.unwrap_or(0) + n);
        }
    };
    for line in output.lines().filter(|l| l.contains("step_finish")) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line.trim()) else {
            continue;
        };
        if v["type"] != "step_finish" {
            continue;
        }
        let part = &v["part"];
        let tokens = &part["tokens"];
        add_u(&mut usage.input_tokens, &tokens["input"]);
        add_u(&mut usage.output_tokens, &tokens["output"]);
        if usage.output_tokens.is_some() {
            add_u(&mut usage.output_tokens, &tokens["reasoning"]);
        }
        if let Some(c) = part["cost"].as_f64() {
            usage.cost_usd = Some(usage.cost_usd.unwrap_or(0.0) + c);
        }
    }
    usage
}

fn regex(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

/// aider: after each model call `Tokens: 2.5k sent, 1.2k cache write, 3.1k cache hit, 40
/// received.` (`sent` leaves cache hits out; counts over 1000 rounded to `k`), then, when it
/// knows the model's prices, `Cost: $0.01 message, $0.02 session.` — possibly wrapped at 80
/// columns. Tokens are summed over the turn's calls; the cost is the last `session` figure (one
/// aider process is one turn).
pub fn aider(output: &str) -> Usage {
    static TOKENS: OnceLock<Option<Regex>> = OnceLock::new();
    static COST: OnceLock<Option<Regex>> = OnceLock::new();
    let text = super::presets::unwrap_lines(output);
    let mut usage = Usage::default();
    if let Some(tokens) = regex(
        &TOKENS,
        r"(?m)^Tokens: ([\d.]+)(k?) sent,(?: [\d.]+k? cache write,)?(?: [\d.]+k? cache hit,)? ([\d.]+)(k?) received\.",
    ) {
        let count = |n: &str, k: &str| -> Option<u64> {
            let n: f64 = n.parse().ok()?;
            Some((n * if k.is_empty() { 1.0 } else { 1000.0 }).round() as u64)
        };
        for c in tokens.captures_iter(&text) {
            if let (Some(i), Some(o)) = (count(&c[1], &c[2]), count(&c[3], &c[4])) {
                usage.input_tokens = Some(usage.input_tokens.unwrap_or(0) + i);
                usage.output_tokens = Some(usage.output_tokens.unwrap_or(0) + o);
            }
        }
    }
    if let Some(cost) = regex(&COST, r"Cost: \$[\d.]+ message, \$([\d.]+) session\.") {
        usage.cost_usd = cost
            .captures_iter(&text)
            .last()
            .and_then(|c| c[1].parse().ok());
    }
    usage
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(i: Option<u64>, o: Option<u64>, c: Option<f64>) -> Usage {
        Usage {
            input_tokens: i,
            output_tokens: o,
            cost_usd: c,
        }
    }

    #[test]
    fn opencode_step_finish_events_are_summed() {
        // From the real opencode 1.18.33 against tests/opencode/fake_api.py.
        let step = |reason: &str, cost: &str| {
            format!(
                r#"{{"type":"step_finish","timestamp":1796115490861,"sessionID":"ses_1","part":{{"id":"prt_1","reason":"{reason}","type":"step-finish","tokens":{{"total":157,"input":120,"output":30,"reasoning":0,"cache":{{"write":0,"read":7}}}},"cost":{cost}}}}}"#
            )
        };
        let cases: Vec<(String, Usage)> = vec![
            (
                format!(
                    "{}\n{}\n{}",
                    r#"{"type":"step_start","part":{"type":"step-start"}}"#,
                    step("tool-calls", "0"),
                    step("stop", "0")
                ),
                u(Some(240), Some(60), Some(0.0)),
            ),
            (
                step("stop", "0.00081"),
                u(Some(120), Some(30), Some(0.00081)),
            ),
            (
                r#"{"type":"step_finish","part":{"tokens":{"input":5,"output":2,"reasoning":3}}}"#
                    .into(),
                u(Some(5), Some(5), None),
            ),
            (
                r#"{"type":"error","error":{"name":"APIError","data":{"message":"Overloaded","statusCode":529}}}"#
                    .into(),
                u(None, None, None),
            ),
            (String::new(), u(None, None, None)),
        ];
        for (output, want) in cases {
            assert_eq!(opencode(&output), want, "{output}");
        }
    }

    #[test]
    fn aider_token_and_cost_lines_are_read() {
        // Formats of aider 0.86.2 (aider/coders/base_coder.py); the first is the real CLI's.
        let cases: &[(&str, Usage)] = &[
            (
                "I will create hello.txt.\n\nTokens: 200 sent, 40 received.\n\nhello.txt\nApplied edit to hello.txt\n",
                u(Some(200), Some(40), None),
            ),
            (
                "Tokens: 2.5k sent, 1.2k cache write, 3.1k cache hit, 40 received.\nCost: $0.01 message, $0.02 session.\nTokens: 12k sent, 1.0k received. Cost: $0.05 message, $0.07 \nsession.\n",
                u(Some(14_500), Some(1_040), Some(0.07)),
            ),
            (
                "Tokens: 300 sent, 0 received. Cost: $0.00 message, $0.00 session.",
                u(Some(300), Some(0), Some(0.0)),
            ),
            (
                "litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect \nAPI key provided",
                u(None, None, None),
            ),
        ];
        for (output, want) in cases {
            assert_eq!(aider(output), *want, "{output}");
        }
    }

    #[test]
    fn tokens_are_input_plus_output() {
        assert_eq!(u(Some(3), Some(4), None).tokens(), Some(7));
        assert_eq!(u(None, Some(4), None).tokens(), Some(4));
        assert_eq!(u(None, None, Some(1.0)).tokens(), None);
        assert_eq!(usage("opencode", "").map(|u| u.tokens()), Some(None));
        assert_eq!(usage("cursor", ""), None);
    }
}
