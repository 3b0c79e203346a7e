//! Tests of the classifier: each preset's real error texts, wrapped lines, reset days, idle
//! timeouts inside a wait, and the agent's last message.

use super::*;
use crate::runner::presets::preset;
use crate::usage::unwrap_lines;

const NOW: u64 = 1_800_000_000_000;

fn classify(agent: &str, exit: i32, output: &str) -> TurnVerdict {
    let patterns = match preset(agent) {
        Some(p) => Patterns::of(p),
        None => Patterns::all(),
    };
    patterns.classify(exit, output, NOW)
}

/// opencode's one error line (real 1.18.33 shape), for a message, status and content-length.
fn oc_error(message: &str, status: u16, retryable: bool, length: &str) -> String {
    format!(
        r#"{{"type":"error","timestamp":1796115811881,"sessionID":"ses_1","error":{{"name":"APIError","data":{{"message":"{message}","statusCode":{status},"isRetryable":{retryable},"responseHeaders":{{"content-length":"{length}","content-type":"application/json","date":"Tue, 01 Dec 2026 09:03:31 GMT"}},"responseBody":"{{}}","metadata":{{"url":"http://127.0.0.1:36233/v1/messages"}}}}}}}}"#
    )
}

/// aider 0.86.2's stdout after a 401 and after a usage limit (it exits 0 after both).
const AIDER_401: &str = "Aider v0.86.2\nModel: openai/fake-model with whole edit format\nGit repo: .git with 2 files\nRepo-map: using 1024 tokens, auto refresh\n\nlitellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect \nAPI key provided: sk-offl****test. You can find your API key at \nhttps://platform.openai.com/account/api-keys.\nThe API provider is not able to authenticate you. Check your API key.\n\nhttps://platform.openai.com/account/api-keys\n\n";
const AIDER_QUOTA: &str = "Repo-map: using 1024 tokens, auto refresh\n\nlitellm.RateLimitError: RateLimitError: OpenAIException - You have hit your \nusage limit. Your quota will reset in 2 hours.\nThe API provider has rate limited you. Try again later or check your quotas.\nRetrying in 0.2 seconds...\nlitellm.RateLimitError: RateLimitError: OpenAIException - You have hit your \nusage limit. Your quota will reset in 2 hours.\nThe API provider has rate limited you. Try again later or check your quotas.\n\n";

fn kind(v: &TurnVerdict) -> &'static str {
    match v {
        TurnVerdict::Ok => "ok",
        TurnVerdict::Failed(_) => "failed",
        TurnVerdict::UsageLimit {
            resets_at_ms: Some(_),
            ..
        } => "usage-limit",
        TurnVerdict::UsageLimit { .. } => "usage-limit-no-reset",
        TurnVerdict::Hard(_) => "hard",
    }
}

#[test]
fn each_presets_real_error_texts() {
    // (agent, exit code, output, verdict)
    let cases: &[(&str, i32, &str, &str)] = &[
        // Claude Code 2.1.x, seen with the real CLI against a stand-in API.
        (
            "claude",
            1,
            r#"{"type":"system","subtype":"api_retry","attempt":1}
{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 overloaded_error. Please try again later."}"#,
            "failed",
        ),
        (
            "claude",
            1,
            r#"{"type":"result","is_error":true,"result":"API Error: Request rejected (429) · rate_limit_error"}"#,
            "failed",
        ),
        (
            "claude",
            1,
            r#"{"type":"result","is_error":true,"result":"Failed to authenticate. API Error: 401 authentication_error"}"#,
            "hard",
        ),
        (
            "claude",
            1,
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1800003600,"rateLimitType":"five_hour"}}
{"type":"result","is_error":true,"result":"You've hit your limit · resets 2pm (Asia/Shanghai)"}"#,
            "usage-limit",
        ),
        (
            "claude",
            0,
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1800003600}}
{"type":"result","subtype":"success","is_error":false,"result":"Implemented the rate limiter; 429 on excess."}"#,
            "ok",
        ),
        (
            "claude",
            1,
            "Claude AI usage limit reached|1800003600",
            "usage-limit",
        ),
        ("claude", 1, "API Error: Connection error.", "failed"),
        // Claude Code 2.1.197, seen with the real CLI against tests/fixtures/agents/claude/fake_api.py.
        (
            "claude",
            1,
            r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":1,"retry_delay_ms":525.4,"error_status":529,"error":"overloaded"}
{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment."}"#,
            "failed",
        ),
        (
            "claude",
            1,
            r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"result":"Invalid API key · Fix external API key"}"#,
            "hard",
        ),
        (
            "claude",
            0,
            r#"{"type":"result","is_error":true,"result":"API Error: 500"}"#,
            "failed",
        ),
        (
            "claude",
            1,
            "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
            "hard",
        ),
        // Qwen Code 0.24.4 --output-format stream-json, seen with the real CLI against a
        // stand-in OpenAI API: every failure exits 1, the reason in the final result event.
        (
            "qwen",
            1,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"[API Error: 401 Incorrect API key provided: sk-offl****test. You can find your API key at https://platform.openai.com/account/api-keys.]"}]}}
{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0},"error":{"message":"[API Error: 401 Incorrect API key provided: sk-offl****test. You can find your API key at https://platform.openai.com/account/api-keys.]"}}"#,
            "hard",
        ),
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"usage":{"input_tokens":0,"output_tokens":0},"error":{"message":"Missing API key for OpenAI-compatible auth. Set settings.security.auth.apiKey, or set the 'OPENAI_API_KEY' environment variable."}}"#,
            "hard",
        ),
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"usage":{"input_tokens":0,"output_tokens":0},"error":{"message":"No auth type is selected. Please configure an auth type (e.g. via settings or `--auth-type`) before running in non-interactive mode."}}"#,
            "hard",
        ),
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0},"error":{"message":"[API Error: 503 Service Unavailable]"}}"#,
            "failed",
        ),
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: 500 The server had an error while processing your request. Sorry about that!]"}}"#,
            "failed",
        ),
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: 429 You exceeded your current quota, please check your plan and billing details.]\nPossible quota limitations in place or slow response times detected. Please wait and try again later."}}"#,
            "usage-limit-no-reset",
        ),
        // A constructed rate limit, not seen from it: retried, not waited out.
        (
            "qwen",
            1,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: 429 Rate limit reached for requests]\nPossible quota limitations in place or slow response times detected. Please wait and try again later."}}"#,
            "failed",
        ),
        // A tool's output that mentions a 401 is not the API's.
        (
            "qwen",
            0,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_2","is_error":false,"content":"Command: curl -i localhost\nOutput: HTTP/1.1 401 Unauthorized\nExit Code: 0"}]}}
{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Wrote hello.txt; goal verify passed.","usage":{"input_tokens":600,"output_tokens":40,"cache_read_input_tokens":20,"total_tokens":640}}"#,
            "ok",
        ),
        (
            "qwen",
            0,
            r#"{"type":"result","subtype":"error_during_execution","is_error":true,"error":{"message":"[API Error: 503 Service Unavailable]"}}"#,
            "failed",
        ),
        // Pi 0.73.1 (--mode json).
        (
            "pi",
            1,
            r#"{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":2000,"errorMessage":"529 overloaded"}
{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"529 overloaded"}"#,
            "failed",
        ),
        (
            "pi",
            1,
            "Error: rate limit exceeded: quota will reset after 5h",
            "usage-limit",
        ),
        ("pi", 1, "No API key found for provider anthropic", "hard"),
        ("pi", 0, r#"{"type":"agent_end","messages":[]}"#, "ok"),
        // codex 0.169.0 exec --json, seen with the real CLI against a stand-in API.
        (
            "codex",
            1,
            r#"{"type":"error","message":"unexpected status 401 Unauthorized: Incorrect API key provided: sk-offl****test. You can find your API key at https://platform.openai.com/account/api-keys., url: http://127.0.0.1:4242/v1/responses"}
{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided: sk-offl****test. You can find your API key at https://platform.openai.com/account/api-keys., url: http://127.0.0.1:4242/v1/responses"}}"#,
            "hard",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: You didn't provide an API key. You need to provide your API key in an Authorization header"}}"#,
            "hard",
        ),
        (
            "codex",
            1,
            r#"{"type":"error","message":"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 10:32 AM."}
{"type":"turn.failed","error":{"message":"You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 10:32 AM."}}"#,
            "usage-limit",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"You’ve hit your usage limit. Try again at Dec 2nd, 2026 9:28 AM."}}"#,
            "usage-limit",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"You've hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes."}}"#,
            "usage-limit",
        ),
        (
            "codex",
            1,
            r#"{"type":"error","message":"exceeded retry limit, last status: 429 Too Many Requests"}
{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#,
            "failed",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"Selected model is at capacity. Please try a different model."}}"#,
            "failed",
        ),
        (
            "codex",
            1,
            r#"{"type":"error","message":"Reconnecting... 5/5 (We’re currently experiencing high demand, which may cause temporary errors.)"}
{"type":"turn.failed","error":{"message":"We’re currently experiencing high demand, which may cause temporary errors."}}"#,
            "failed",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"unexpected status 502 Bad Gateway: Bad gateway, url: http://127.0.0.1:4242/v1/responses"}}"#,
            "failed",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"unexpected status 529 <unknown status code>: overloaded, url: http://127.0.0.1:4242/v1/responses"}}"#,
            "failed",
        ),
        (
            "codex",
            1,
            r#"{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}"#,
            "failed",
        ),
        // A good turn carries error events (the WebSocket fallback, reconnects): not failures.
        (
            "codex",
            0,
            r#"{"type":"error","message":"Reconnecting... 2/5 (unexpected status 404 Not Found: Unknown error, url: ws://127.0.0.1:4242/v1/responses)"}
{"type":"item.completed","item":{"id":"item_0","type":"error","message":"Falling back from WebSockets to HTTPS transport. unexpected status 426 Upgrade Required"}}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Wrote hello.txt; goal verify passed."}}
{"type":"turn.completed","usage":{"input_tokens":2400,"cached_input_tokens":400,"output_tokens":60}}
Reading additional input from stdin..."#,
            "ok",
        ),
        (
            "codex",
            0,
            r#"{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#,
            "failed",
        ),
        // gemini 0.61.0, seen with the real CLI against a stand-in API: exit codes are the HTTP
        // status mod 256, errors are on stderr after warning lines, stdout is empty.
        (
            "gemini",
            55,
            "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.",
            "hard",
        ),
        (
            "gemini",
            41,
            "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
            "hard",
        ),
        ("gemini", 41, "Invalid auth method selected.", "hard"),
        ("gemini", 52, "Error in settings.json", "hard"),
        (
            "gemini",
            144,
            r#"YOLO mode is enabled. All tool calls will be automatically approved.
Error when talking to Gemini API Full report available at: /tmp/gemini-client-error.json _ApiError: {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}
{
  "session_id": "s",
  "error": {"type": "Error", "message": "{\"error\":{\"code\":400,\"message\":\"API key not valid. Please pass a valid API key.\",\"status\":\"INVALID_ARGUMENT\"}}", "code": 400}
}"#,
            "hard",
        ),
        (
            "gemini",
            145,
            r#"_ApiError: {"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#,
            "hard",
        ),
        (
            "gemini",
            147,
            r#"_ApiError: {"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#,
            "hard",
        ),
        (
            "gemini",
            1,
            r#"_ApiError: {"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#,
            "hard",
        ),
        (
            "gemini",
            247,
            r#"Attempt 1 failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}
Attempt 10 failed: The model is overloaded. Please try again later.. Max attempts reached
{
  "session_id": "s",
  "error": {"type": "Error", "message": "The model is overloaded. Please try again later.", "code": 503}
}"#,
            "failed",
        ),
        (
            "gemini",
            173,
            r#"Attempt 10 failed: Resource has been exhausted (e.g. check quota).. Max attempts reached
{"error":{"type":"Error","message":"Resource has been exhausted (e.g. check quota).","code":429}}"#,
            "failed",
        ),
        (
            "gemini",
            173,
            "Error when talking to Gemini API Full report available at: /tmp/x.json TerminalQuotaError: You exceeded your current quota, please check your plan and billing details. Please retry in 3600s.\nSuggested retry after 3600s.",
            "usage-limit",
        ),
        (
            "gemini",
            173,
            "TerminalQuotaError: You have exhausted your daily quota on this model.",
            "usage-limit-no-reset",
        ),
        (
            "gemini",
            1,
            r#"{"error":{"type":"ApiError","message":"[API Error: RESOURCE_EXHAUSTED 429]"}}"#,
            "failed",
        ),
        ("gemini", 42, "Error: unknown argument", "hard"),
        (
            "gemini",
            0,
            "Error executing tool run_shell_command: Tool \"run_shell_command\" not found in registry.\n{\n  \"response\": \"I cannot run commands.\"\n}",
            "hard",
        ),
        (
            "gemini",
            53,
            r#"{"response":"Reached the turn limit"}"#,
            "ok",
        ),
        (
            "gemini",
            0,
            "Warning: 256-color support not detected.\nYOLO mode is enabled. All tool calls will be automatically approved.\n{\n  \"session_id\": \"s\",\n  \"response\": \"Wrote hello.txt; goal verify passed.\"\n}",
            "ok",
        ),
        // opencode, aider: the real CLIs (1.18.33, 0.86.2) against local stand-in APIs,
        // texts as AGENTS-NOTES.md records them.
        (
            "opencode",
            1,
            &oc_error("invalid x-api-key", 401, false, "92"),
            "hard",
        ),
        (
            "opencode",
            1,
            &oc_error(
                "Your API key does not have permission to use the specified resource.",
                403,
                false,
                "139",
            ),
            "hard",
        ),
        (
            "opencode",
            1,
            &oc_error("Overloaded", 529, true, "81"),
            "failed",
        ),
        (
            "opencode",
            1,
            &oc_error(
                "You have reached your specified API usage limits. You will regain access on 2027-01-16 at 00:00 UTC.",
                400,
                false,
                "176",
            ),
            "usage-limit",
        ),
        // Numbers in the headers are not a status: a 400 whose content-length is 401.
        (
            "opencode",
            1,
            &oc_error("prompt is too long", 400, false, "401"),
            "failed",
        ),
        (
            "opencode",
            1,
            r#"{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"ProviderAuthError","data":{"providerID":"anthropic","message":"Anthropic API key is missing. Pass it using the 'apiKey' parameter or the ANTHROPIC_API_KEY environment variable."}}}"#,
            "hard",
        ),
        (
            "opencode",
            0,
            r#"{"type":"error","error":{"name":"APIError","data":{"message":"Overloaded"}}}"#,
            "failed",
        ),
        (
            "opencode",
            0,
            "{\"type\":\"step_start\",\"part\":{\"type\":\"step-start\"}}\n! permission requested: external_directory (/etc/*); auto-rejecting\n{\"type\":\"text\",\"part\":{\"type\":\"text\",\"text\":\"I could not read /etc.\"}}",
            "ok",
        ),
        ("aider", 0, AIDER_401, "hard"),
        ("aider", 0, AIDER_QUOTA, "usage-limit"),
        (
            "aider",
            0,
            "Repo-map: using 1024 tokens, auto refresh\n\nlitellm.APIError: APIError: OpenAIException - Overloaded\nRetrying in 0.2 seconds...\nlitellm.APIError: APIError: OpenAIException - Overloaded\n\n",
            "failed",
        ),
        (
            "aider",
            0,
            "litellm.ServiceUnavailableError: ServiceUnavailableError: OpenAIException - \nService Unavailable\nThe API provider's servers are down or overloaded.\n",
            "failed",
        ),
        // A call aider retried by itself and then got answered: a good turn.
        (
            "aider",
            0,
            "litellm.APIError: APIError: OpenAIException - Overloaded\nRetrying in 0.2 seconds...\nI will create hello.txt.\n\nhello.txt\n```\nhello\n```\n\nTokens: 200 sent, 40 received.\n\nhello.txt\nApplied edit to hello.txt\n1 passed, 0 failed\n",
            "ok",
        ),
        (
            "aider",
            0,
            "Aider v0.86.2\nModel: openai/fake-model with whole edit format\n\nI will create hello.txt.\n\nTokens: 200 sent, 40 received.\nApplied edit to hello.txt\n",
            "ok",
        ),
        (
            "aider",
            1,
            "litellm.AuthenticationError: AnthropicException - invalid x-api-key",
            "hard",
        ),
        (
            "cursor",
            1,
            "Error: Authentication required. Please run 'cursor-agent login' first, or set CURSOR_API_KEY",
            "hard",
        ),
        (
            "cursor",
            1,
            r#"{"type":"result","is_error":true,"result":"rate limit exceeded"}"#,
            "failed",
        ),
        // A custom command is read with every preset's patterns.
        (
            "custom",
            1,
            "Failed to authenticate. API Error: 401 authentication_error",
            "hard",
        ),
        ("custom", 1, "API Error: 529 overloaded_error", "failed"),
        (
            "custom",
            1,
            r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1800000003}}"#,
            "usage-limit",
        ),
        (
            "custom",
            1,
            "usage limit reached, no time given",
            "usage-limit-no-reset",
        ),
        ("custom", 0, "done, all tests pass", "ok"),
        ("custom", 3, "boom", "failed"),
        (
            "custom",
            1,
            "Error: connect ECONNREFUSED 127.0.0.1:443",
            "failed",
        ),
    ];
    for (agent, exit, output, want) in cases {
        let got = classify(agent, *exit, output);
        assert_eq!(
            kind(&got),
            *want,
            "{agent} exit {exit}: {output}\n→ {got:?}"
        );
    }
}

#[test]
fn wrapped_lines_are_joined() {
    let cases: &[(&str, &str)] = &[
        (
            "OpenAIException - You have hit your \nusage limit. Your quota will reset in 2 hours.\n",
            "OpenAIException - You have hit your usage limit. Your quota will reset in 2 hours.\n",
        ),
        ("one\ntwo \n\nthree", "one\ntwo \n\nthree"),
        ("a \r\nb", "a b"),
        ("x \ny \nz\n", "x y z\n"),
        ("indent \n  next", "indent \n  next"),
    ];
    for (text, want) in cases {
        assert_eq!(unwrap_lines(text), *want, "{text:?}");
    }
}

#[test]
fn the_spend_limit_day() {
    let cases: &[(&str, Option<u64>)] = &[
        (
            "You have reached your specified API usage limits. You will regain access on 2026-12-02 at 00:00 UTC.",
            Some(1_796_169_600_000),
        ),
        (
            "You will regain access on 2026-12-02 at 09:30 Europe/Paris.",
            Some(1_796_169_600_000 + 8 * 3_600_000 + 30 * 60_000),
        ),
        ("You will regain access soon.", None),
        ("regain access on 2026-13-02 at 00:00 UTC", None),
    ];
    for (text, want) in cases {
        assert_eq!(regain_access(text), *want, "{text}");
    }
}

#[test]
fn an_idle_timeout_inside_a_wait() {
    let opencode = Patterns::of(preset("opencode").unwrap());
    let stream_error = r#"timestamp=2026-12-01T08:58:36.178Z level=ERROR run=6976ea82 message="stream error" providerID=fake modelID=claude-fake session.id=ses_1 small=false agent=build mode=primary error.error="AI_APICallError: Number of requests has exceeded your rate limit.""#;
    let cases: Vec<(String, &str)> = vec![
        // Seen with the real opencode 1.18.33: a 429 with `retry-after: 86400`, then silence.
        (
            format!("{{\"type\":\"step_start\"}}\n{stream_error}\n"),
            "usage-limit-no-reset",
        ),
        (
            stream_error.replace(
                "exceeded your rate limit.",
                "exceeded your rate limit. You will regain access on 2027-01-16 at 00:00 UTC.",
            ),
            "usage-limit",
        ),
        // Its start-up tasks may log after the error.
        (
            format!(
                "{stream_error}\ntimestamp=2026-12-01T08:58:36.300Z level=INFO run=6976ea82 message=\"project copy refresh done\" projectID=global\n"
            ),
            "usage-limit-no-reset",
        ),
        // It went on after the error: quiet for another reason.
        (
            format!("{stream_error}\n{{\"type\":\"step_start\"}}"),
            "none",
        ),
        ("{\"type\":\"text\"}".into(), "none"),
        (String::new(), "none"),
    ];
    for (output, want) in cases {
        let got = opencode.idle(&output, NOW);
        assert_eq!(got.as_ref().map_or("none", kind), want, "{output}");
    }
    // Another preset's idle timeout is an idle timeout.
    let claude = Patterns::of(preset("claude").unwrap());
    assert_eq!(claude.idle(stream_error, NOW), None);
}

#[test]
fn last_messages() {
    let cases: &[(&str, Option<&str>)] = &[
        (
            r#"{"type":"result","result":"Added the limiter."}"#,
            Some("Added the limiter."),
        ),
        (
            r#"{"type":"item.completed","item":{"type":"agent_message","text":"Fixed it"}}"#,
            Some("Fixed it"),
        ),
        (
            "{\n  \"response\": \"Gemini says hi\"\n}",
            Some("Gemini says hi"),
        ),
        (
            r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"pi reply"}]}}"#,
            Some("pi reply"),
        ),
        (
            "Warning: 256-color support not detected.\nYOLO mode is enabled. All tool calls will be automatically approved.\n{\n  \"session_id\": \"s\",\n  \"response\": \"Wrote hello.txt\",\n  \"stats\": {\"models\": {}}\n}\n",
            Some("Wrote hello.txt"),
        ),
        ("{\n  \"session_id\": \"s\",\n  \"stats\": {}\n}\n", None),
        ("working...\nall done\n\n", Some("all done")),
        (
            "timestamp=2026-12-01T10:07:06.558Z level=INFO run=d01eaa67 message=\"disposing instance\"\n",
            None,
        ),
        // aider 0.86.2: its answer before the `Tokens:` line, not the test's output after it.
        (
            "Aider v0.86.2\nRepo-map: using 1024 tokens, auto refresh\n\n\n.agents/goal/GOAL.md\nI will create hello.txt.\n\nhello.txt\n```\nhello\n```\n\nTokens: 200 sent, 40 received.\n\nhello.txt\nApplied edit to hello.txt\n1 passed, 0 failed\n",
            Some("I will create hello.txt.\n\nhello.txt\n```\nhello\n```"),
        ),
        (
            "Tokens: 200 sent, 40 received.\nApplied edit to hello.txt\n0 passed, 1 failed\nAttempt to fix test errors? (Y)es/(N)o [Yes]: y\nFixed the test.\nTokens: 300 sent, 10 received.\n",
            Some("Fixed the test."),
        ),
        ("", None),
    ];
    for (output, want) in cases {
        assert_eq!(last_message(output).as_deref(), *want, "{output}");
    }
}
