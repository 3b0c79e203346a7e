//! What one turn used, as the agent CLI reported it: input and output tokens and the cost in US
//! dollars, each absent when the CLI did not report it (a reported 0 stays 0). Tokens are input
//! plus output; cached input is left out where the CLI reports it separately. One pure reader per
//! output format, chosen by the preset; the budgets of `goal run` add these up.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

/// One turn's usage.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Input plus output tokens, when either was reported.
    pub fn tokens(&self) -> Option<u64> {
        match (self.input_tokens, self.output_tokens) {
            (None, None) => None,
            (i, o) => Some(i.unwrap_or(0).saturating_add(o.unwrap_or(0))),
        }
    }

    /// The sum of two reports (a field stays absent only when both lack it).
    pub fn plus(self, other: Usage) -> Usage {
        fn sum<T: std::ops::Add<Output = T>>(a: Option<T>, b: Option<T>) -> Option<T> {
            match (a, b) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            }
        }
        Usage {
            input_tokens: sum(self.input_tokens, other.input_tokens),
            output_tokens: sum(self.output_tokens, other.output_tokens),
            cost_usd: sum(self.cost_usd, other.cost_usd),
        }
    }
}

/// What a preset's CLI reports about usage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reports {
    pub tokens: bool,
    pub cost: bool,
}

/// Every JSON object in an agent's output: one a line (JSON events), or one document over several
/// lines (Gemini's `--output-format json`), whatever plain lines come before or between them.
pub fn json_values(output: &str) -> Vec<Value> {
    scan(output).0
}

/// The JSON objects of an agent's output ([`json_values`]) and its last non-empty line that is
/// not part of one.
pub fn scan(output: &str) -> (Vec<Value>, Option<&str>) {
    let mut values = Vec::new();
    let mut last_plain = None;
    let mut offset = 0;
    while offset < output.len() {
        let rest = &output[offset..];
        let line_len = rest.find('\n').map_or(rest.len(), |i| i + 1);
        if rest.trim_start_matches([' ', '\t']).starts_with('{') {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
            if let Some(Ok(value)) = stream.next() {
                if value.is_object() {
                    values.push(value);
                }
                offset += stream.byte_offset().max(1);
                continue;
            }
        }
        let line = rest[..line_len].trim();
        if !line.is_empty() {
            last_plain = Some(line);
        }
        offset += line_len;
    }
    (values, last_plain)
}

fn count(v: &Value) -> Option<u64> {
    v.as_u64()
}

/// For a CLI that reports nothing.
pub fn none(_output: &str) -> Usage {
    Usage::default()
}

/// Claude Code's final `result` event: `total_cost_usd` and `usage` (`input_tokens` leaves out
/// the cache reads and writes, which it reports separately).
pub fn claude(output: &str) -> Usage {
    json_values(output)
        .iter()
        .rfind(|v| v["type"] == "result")
        .map(|v| Usage {
            input_tokens: count(&v["usage"]["input_tokens"]),
            output_tokens: count(&v["usage"]["output_tokens"]),
            cost_usd: v["total_cost_usd"].as_f64(),
        })
        .unwrap_or_default()
}

/// Qwen Code's final `result` event: `usage.input_tokens` counts the cached part that
/// `cache_read_input_tokens` reports, so that is taken off; no cost.
pub fn qwen(output: &str) -> Usage {
    json_values(output)
        .iter()
        .rfind(|v| v["type"] == "result")
        .map(|v| {
            let u = &v["usage"];
            let cached = count(&u["cache_read_input_tokens"]).unwrap_or(0);
            Usage {
                input_tokens: count(&u["input_tokens"]).map(|i| i.saturating_sub(cached)),
                output_tokens: count(&u["output_tokens"]),
                cost_usd: None,
            }
        })
        .unwrap_or_default()
}

/// Codex's `turn.completed` events: `usage.input_tokens` counts the cached input that
/// `cached_input_tokens` reports, so that is taken off; no cost.
pub fn codex(output: &str) -> Usage {
    json_values(output)
        .iter()
        .filter(|v| v["type"] == "turn.completed")
        .map(|v| {
            let u = &v["usage"];
            let cached = count(&u["cached_input_tokens"]).unwrap_or(0);
            Usage {
                input_tokens: count(&u["input_tokens"]).map(|i| i.saturating_sub(cached)),
                output_tokens: count(&u["output_tokens"]),
                cost_usd: None,
            }
        })
        .fold(Usage::default(), Usage::plus)
}

/// Gemini's `stats.models.<model>.tokens` in its JSON answer: `input` (the prompt less its cached
/// part; `prompt - cached` where `input` is missing) and `candidates + thoughts`; no cost.
pub fn gemini(output: &str) -> Usage {
    let Some(doc) = json_values(output)
        .into_iter()
        .rfind(|v| v["stats"]["models"].is_object())
    else {
        return Usage::default();
    };
    let mut total = Usage::default();
    for model in doc["stats"]["models"].as_object().into_iter().flatten() {
        let t = &model.1["tokens"];
        let input = count(&t["input"]).or_else(|| {
            count(&t["prompt"]).map(|p| p.saturating_sub(count(&t["cached"]).unwrap_or(0)))
        });
        let output = match (count(&t["candidates"]), count(&t["thoughts"])) {
            (None, None) => None,
            (c, th) => Some(c.unwrap_or(0) + th.unwrap_or(0)),
        };
        total = total.plus(Usage {
            input_tokens: input,
            output_tokens: output,
            cost_usd: None,
        });
    }
    total
}

/// Pi's `message_end` events of assistant messages: `usage.input` (cache reads apart),
/// `usage.output`, `usage.cost.total`.
pub fn pi(output: &str) -> Usage {
    json_values(output)
        .iter()
        .filter(|v| v["type"] == "message_end" && v["message"]["role"] == "assistant")
        .map(|v| {
            let u = &v["message"]["usage"];
            Usage {
                input_tokens: count(&u["input"]),
                output_tokens: count(&u["output"]),
                cost_usd: u["cost"]["total"].as_f64(),
            }
        })
        .fold(Usage::default(), Usage::plus)
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
    let text = unwrap_lines(output);
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

/// Lines a CLI wrapped at 80 columns joined again: a line that ends in a space after a word
/// (where the wrapper broke it) goes on in the next line.
pub fn unwrap_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let body = line.trim_end_matches(['\n', '\r']);
        let next_goes_on = lines
            .peek()
            .is_some_and(|n| n.chars().next().is_some_and(|c| !c.is_whitespace()));
        if body.ends_with(' ')
            && body.trim_end().len() + 1 == body.len()
            && !body.trim().is_empty()
            && next_goes_on
        {
            out.push_str(body);
        } else {
            out.push_str(line);
        }
    }
    out
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
    fn each_clis_usage_report() {
        type Reader = fn(&str) -> Usage;
        let cases: &[(&str, Reader, &str, Usage)] = &[
            // Claude Code 2.1.x stream-json: the final result.
            (
                "claude",
                claude,
                r#"{"type":"system","subtype":"init"}
{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.0123,"usage":{"input_tokens":20,"cache_creation_input_tokens":500,"cache_read_input_tokens":3000,"output_tokens":10}}"#,
                u(Some(20), Some(10), Some(0.0123)),
            ),
            (
                "claude, a reported 0",
                claude,
                r#"{"type":"result","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}"#,
                u(Some(0), Some(0), Some(0.0)),
            ),
            (
                "claude, no result",
                claude,
                "API Error: 500",
                u(None, None, None),
            ),
            // codex 0.169.0 exec --json (the stand-in's run).
            (
                "codex",
                codex,
                r#"{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Wrote hello.txt; goal verify passed."}}
{"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"cache_write_input_tokens":0,"output_tokens":60,"reasoning_output_tokens":0}}"#,
                u(Some(2000), Some(60), None),
            ),
            (
                "codex, failed",
                codex,
                r#"{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#,
                u(None, None, None),
            ),
            // gemini 0.61.0 --output-format json, warnings on stderr before it.
            (
                "gemini",
                gemini,
                "YOLO mode is enabled. All tool calls will be automatically approved.\n{\n  \"session_id\": \"s\",\n  \"response\": \"done\",\n  \"stats\": {\n    \"models\": {\n      \"gemini-fake\": {\"tokens\": {\"input\": 2400, \"prompt\": 2700, \"candidates\": 75, \"total\": 2775, \"cached\": 300, \"thoughts\": 5, \"tool\": 0}},\n      \"gemini-lite\": {\"tokens\": {\"prompt\": 100, \"candidates\": 1, \"cached\": 40}}\n    }\n  }\n}\n",
                u(Some(2460), Some(81), None),
            ),
            (
                "gemini, an error",
                gemini,
                "{\n  \"session_id\": \"s\",\n  \"error\": {\"type\": \"Error\", \"message\": \"The model is overloaded.\", \"code\": 503}\n}",
                u(None, None, None),
            ),
            // Qwen Code 0.24.4 stream-json: the final result (the stand-in's run, two calls).
            (
                "qwen",
                qwen,
                r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":300,"output_tokens":20,"cache_read_input_tokens":10,"total_tokens":320}}}
{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"done","usage":{"input_tokens":600,"output_tokens":40,"cache_read_input_tokens":20,"total_tokens":640}}"#,
                u(Some(580), Some(40), None),
            ),
            (
                "qwen, no key",
                qwen,
                r#"{"type":"result","subtype":"error_during_execution","is_error":true,"usage":{"input_tokens":0,"output_tokens":0},"error":{"message":"No auth type is selected."}}"#,
                u(Some(0), Some(0), None),
            ),
            // pi 0.73.1 --mode json: one message_end per assistant message.
            (
                "pi",
                pi,
                r#"{"type":"message_end","message":{"role":"user","content":[]}}
{"type":"message_end","message":{"role":"assistant","usage":{"input":100,"output":20,"cacheRead":50,"cacheWrite":0,"totalTokens":170,"cost":{"input":0.001,"output":0.002,"cacheRead":0,"cacheWrite":0,"total":0.003}}}}
{"type":"message_end","message":{"role":"assistant","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.0005}}}}"#,
                u(Some(110), Some(25), Some(0.0035)),
            ),
            (
                "pi, the faux provider's zeros",
                pi,
                r#"{"type":"message_end","message":{"role":"assistant","usage":{"input":0,"output":0,"cost":{"total":0}}}}"#,
                u(Some(0), Some(0), Some(0.0)),
            ),
            (
                "none",
                none,
                r#"{"type":"result","total_cost_usd":1}"#,
                u(None, None, None),
            ),
        ];
        for (name, read, output, want) in cases {
            let got = read(output);
            assert_eq!(got.input_tokens, want.input_tokens, "{name}");
            assert_eq!(got.output_tokens, want.output_tokens, "{name}");
            match (got.cost_usd, want.cost_usd) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{name}: {g} != {w}"),
                (g, w) => assert_eq!(g, w, "{name}"),
            }
        }
    }

    #[test]
    fn tokens_are_input_plus_output() {
        assert_eq!(u(Some(3), Some(4), None).tokens(), Some(7));
        assert_eq!(u(None, Some(4), None).tokens(), Some(4));
        assert_eq!(u(None, None, Some(1.0)).tokens(), None);
        assert_eq!(u(Some(0), Some(0), None).tokens(), Some(0));
    }

    #[test]
    fn json_values_finds_lines_and_documents_among_plain_text() {
        let out =
            "warning one\n{\"a\":1}\nnoise {not json\n{\n  \"b\": {\"c\": 2}\n}\ntrailing }\n";
        let (got, last) = scan(out);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1]["b"]["c"], 2);
        assert_eq!(last, Some("trailing }"));
        assert_eq!(scan("{\"a\":1}\n").1, None);
    }

    #[test]
    fn opencode_step_finish_events_are_summed() {
        // From the real opencode 1.18.33 against tests/fixtures/agents/opencode/fake_api.py.
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
}
