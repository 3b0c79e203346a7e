//! What one turn used, as the agent CLI reported it: input and output tokens and the cost in US
//! dollars, each absent when the CLI did not report it (a reported 0 stays 0). Tokens are input
//! plus output; cached input is left out where the CLI reports it separately. One pure reader per
//! output format, chosen by the preset; the budgets of `goal run` add these up.

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
}
