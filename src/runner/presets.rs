//! Agent presets for `goal run`, as data: one row per agent CLI (its headless command line, where
//! the prompt goes, its output format, and the patterns that tell a transient failure, a usage
//! limit with a reset time and an auth/config failure apart); the classifier over them is
//! `classify`, re-exported here.
//!
//! Most agent CLIs exit 1 for every failure, so the output decides. Sources are named per row;
//! where a fact comes from users' reports rather than a run of the real CLI, the row says so.

use crate::usage::{self, Reports, Usage};

/// Where a preset's command line takes the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptPlace {
    /// In place of the argument `{prompt}`.
    Arg,
    /// On standard input.
    Stdin,
}

/// What the agent prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Text,
    /// One JSON document.
    Json,
    /// One JSON event a line.
    JsonLines,
}

/// One agent CLI in headless mode.
#[derive(Debug)]
pub struct Preset {
    pub name: &'static str,
    /// argv; `{prompt}` is replaced by the prompt when `prompt` is `Arg`.
    pub argv: &'static [&'static str],
    pub prompt: PromptPlace,
    pub output: Output,
    /// Exit codes (besides 0) that end a turn normally.
    pub ok_exits: &'static [i32],
    /// Exit codes that mean bad input or configuration: stop at once.
    pub hard_exits: &'static [i32],
    /// Auth or configuration failure: stop at once (regexes, case-insensitive).
    pub auth: &'static [&'static str],
    /// A usage limit (the reset time is read by [`reset_time`]).
    pub usage_limit: &'static [&'static str],
    /// A transient API or network error (retried with backoff; any other failed turn is too).
    pub transient: &'static [&'static str],
    /// Structured failure events that mark a turn failed even when the CLI exited 0.
    pub failed_on_success: &'static [&'static str],
    /// What the preset sets so the agent can act headless, and how sure we are of each fact.
    pub doc: &'static str,
    /// The CLI version this preset was run against, for real, in the tests (None: unverified).
    pub verified: Option<&'static str>,
    /// What the CLI reports about each turn's usage, and the reader of it.
    pub reports: Reports,
    pub usage: fn(&str) -> Usage,
    /// A line that shows the CLI went on after a failure it printed (aider's `Tokens:` line
    /// after a call it retried by itself): in a turn that exited 0, failures are looked for only
    /// after the last one.
    pub recovered: &'static [&'static str],
    /// The CLI wraps its messages at 80 columns (aider, even with `--no-pretty`): wrapped lines
    /// are joined before matching.
    pub wraps: bool,
    /// The last line the CLI prints before it sleeps inside the turn (opencode waiting out a
    /// `retry-after`): an idle timeout after it is a usage limit, not a failed try.
    pub in_turn_wait: &'static [&'static str],
    /// Files the CLI writes for itself in the worktree (gitignore patterns), kept out of the
    /// commits `goal run` makes through `.git/info/exclude`.
    pub own_files: &'static [&'static str],
    /// How a CI runner installs the CLI (`goal ci init --race`'s workflow).
    pub install: &'static str,
    /// The environment variable the CLI reads its API key from (a secret of that workflow).
    pub key: &'static str,
}

const NO_USAGE: Reports = Reports {
    tokens: false,
    cost: false,
};

/// The levels of log lines (`timestamp=… level=INFO …`) that say nothing of a failure.
pub(super) const NOTE_LEVEL: &[&str] = &[" level=INFO ", " level=DEBUG ", " level=WARN "];

/// Network failures any CLI may print.
pub(super) const NETWORK: &[&str] = &[
    r"\bECONNRESET\b",
    r"\bETIMEDOUT\b",
    r"\bECONNREFUSED\b",
    r"\bEAI_AGAIN\b",
    r"\bENOTFOUND\b",
    r"socket hang up",
    r"fetch failed",
    r"connection (error|reset|refused)",
    r"network (error|is unreachable)",
];

pub const PRESETS: &[Preset] = &[
    Preset {
        name: "claude",
        install: "npm install -g @anthropic-ai/claude-code",
        key: "ANTHROPIC_API_KEY",
        argv: &[
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash,Edit,MultiEdit,Write,Read,Glob,Grep,LS,TodoWrite",
        ],
        prompt: PromptPlace::Stdin,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"authentication_error",
            r"Failed to authenticate",
            r"Invalid API key",
            r"Please run /login",
            r"OAuth token (has expired|revoked)",
            r#""api_error_status"\s*:\s*(401|403)\b"#,
            r"permission_error",
            // Root refuses the skip-permissions flags (seen with the real CLI 2.1.197).
            r"cannot be used with root/sudo privileges",
        ],
        usage_limit: &[
            r#""type"\s*:\s*"rate_limit_event".*"status"\s*:\s*"rejected""#,
            r"usage limit reached",
            r"You['’]ve hit your (usage )?limit",
            r"out of extra usage",
        ],
        transient: &[
            r"overloaded_error",
            r"API Error: 5\d\d",
            r"Request rejected \(429\)",
            r"rate_limit_error",
            r#""api_error_status"\s*:\s*(429|5\d\d)\b"#,
            r"API Error: (Connection error|Request timed out)",
        ],
        failed_on_success: &[r#""type"\s*:\s*"result".*"is_error"\s*:\s*true"#],
        doc: "Claude Code headless: `claude -p` reads the prompt from stdin; `--output-format stream-json --verbose` prints one JSON event a line: `{\"type\":\"system\",\"subtype\":\"api_retry\"}` while it retries by itself, a `rate_limit_event` whose `rate_limit_info.status` is `rejected` with `resetsAt` (Unix seconds) at a usage limit, and a final `{\"type\":\"result\",\"is_error\":…}`; it exits 1 for every failure (529 overloaded → `API Error: 529 overloaded_error`, 429 → `API Error: Request rejected (429) · rate_limit_error`, 401 → `Failed to authenticate. API Error: 401 authentication_error`; checked with the real CLI 2.1.x against a local stand-in API). Tools: headless Claude Code may use no tool that is not allowed, and as root it refuses `--dangerously-skip-permissions` and `--permission-mode bypassPermissions`, so the preset allows `Bash,Edit,MultiEdit,Write,Read,Glob,Grep,LS,TodoWrite` with `--allowedTools` (works as root). Add `--agent-arg --model --agent-arg <model>` for a model. Usage: the final `result` event's `total_cost_usd` and `usage` (`input_tokens`, which leaves out the cache reads and writes it reports apart, and `output_tokens`).",
        verified: Some("2.1.197"),
        reports: Reports {
            tokens: true,
            cost: true,
        },
        usage: usage::claude,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
    Preset {
        name: "codex",
        install: "npm install -g @openai/codex",
        key: "CODEX_API_KEY",
        argv: &[
            "codex",
            "exec",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "{prompt}",
        ],
        prompt: PromptPlace::Arg,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"401 Unauthorized",
            r"\bunauthorized\b",
            r"Not logged in",
            r"Please (log|sign) in",
            r"refresh_token_(reused|expired|invalidated)",
            r"Missing (OpenAI )?API key",
        ],
        usage_limit: &[
            // codex 0.169.0 writes a typographic apostrophe (U+2019): `You’ve hit your usage limit.`
            r"You['’]ve hit your usage limit",
            r"usage_limit_(reached|exceeded)",
            r"usageLimitExceeded",
        ],
        // The specific texts first, so that the retry's reason names the error.
        transient: &[
            r"stream disconnected",
            r"error sending request",
            r"\b5\d\d (Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b",
            r"server_?overloaded|serverOverloaded",
            r"429 Too Many Requests|rate limit",
            r"Selected model is at capacity",
            r"We['’]re currently experiencing high demand",
            r"unexpected status 5\d\d",
            r#""type"\s*:\s*"turn\.failed""#,
        ],
        failed_on_success: &[r#""type"\s*:\s*"turn\.failed""#],
        doc: "Codex CLI 0.169.0 (npm `@openai/codex`), run for real against a local stand-in for the Responses API: `codex exec --json <prompt>` prints JSON events a line (`thread.started`, `item.completed`, `turn.completed` with `usage`; a failure is an `error` event then `turn.failed`, on stdout, exit 1). `--dangerously-bypass-approvals-and-sandbox` lets it run `goal` (which writes under `.git/`) with no approval prompt; its commands run in a login shell (`bash -lc`) by default, so `goal` must be on the PATH the shell profile sets. The key is `CODEX_API_KEY` or `codex login --with-api-key` (`OPENAI_API_KEY` sends no key); the base URL is `openai_base_url` in `$CODEX_HOME/config.toml` (`OPENAI_BASE_URL` is ignored). It retries by itself first (a 401 about 13 s, a 500 about 31 s, with `Reconnecting… N/5` error events that are not failures). 401 → `unexpected status 401 Unauthorized: …` (auth, stop); a usage limit → `You’ve hit your usage limit. … try again at 10:32 AM.` (a local clock time with no zone, or `Dec 2nd, 2026 9:28 AM`: waited out); 429 → `exceeded retry limit, last status: 429 Too Many Requests`, 503 → `Selected model is at capacity.`, 500 → `We’re currently experiencing high demand…` (retried). Usage: tokens from `turn.completed` (input less `cached_input_tokens`, plus output); no cost.",
        verified: Some("0.169.0"),
        reports: Reports {
            tokens: true,
            cost: false,
        },
        usage: usage::codex,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
    Preset {
        name: "gemini",
        install: "npm install -g @google/gemini-cli",
        key: "GEMINI_API_KEY",
        argv: &[
            "gemini",
            "--skip-trust",
            "--yolo",
            "--output-format",
            "json",
            "-p",
            "{prompt}",
        ],
        prompt: PromptPlace::Arg,
        output: Output::Json,
        ok_exits: &[53],
        // 41 no key or a bad auth method, 42 bad input, 52 configuration, 55 an untrusted folder;
        // an API error exits with its HTTP status mod 256: 144 (400: a bad key, a bad request),
        // 145 (401), 147 (403), 148 (404: an unknown model).
        hard_exits: &[41, 42, 52, 55, 144, 145, 147, 148],
        auth: &[
            r"API key not valid",
            r"UNAUTHENTICATED",
            r"PERMISSION_DENIED",
            r"GEMINI_API_KEY.*(not (set|found))",
            r"you must specify the GEMINI_API_KEY",
            r"Invalid auth method selected",
            r"not running in a trusted directory",
            r"(Please )?set an Auth method",
            // Without --yolo headless gemini has no shell tool and exits 0 having run nothing.
            r#"Tool "run_shell_command" not found"#,
        ],
        usage_limit: &[
            r"TerminalQuotaError",
            r"exhausted your daily quota",
            r"exceeded your current quota",
            r"Quota exceeded.*(retry|reset)",
            r"usage limit.*reset",
        ],
        transient: &[
            r"RESOURCE_EXHAUSTED",
            r"\b429\b",
            r"\bUNAVAILABLE\b",
            r"\b50[0-4]\b",
            r"model is overloaded",
            r"Max attempts reached",
        ],
        failed_on_success: &[r#"Tool "run_shell_command" not found"#],
        doc: "Gemini CLI 0.61.0 (npm `@google/gemini-cli`), run for real against a local stand-in for the Gemini API: `gemini --skip-trust --yolo --output-format json -p <prompt>` answers once with one JSON object on stdout (`response`, `stats`); warnings and errors go to stderr, an error as a JSON object after its warning lines. Headless it refuses an untrusted folder (exit 55) unless `--skip-trust`, and without `--yolo` its shell tool is missing. Exit codes: 0 success; 53 turn limit (the turn ended); 41 no key or bad auth, 42 bad input, 52 configuration, 55 untrusted folder (stop at once); an API error exits with its HTTP status mod 256: 144 (400 `API key not valid`), 145 (401), 147 (403), 148 (404) stop at once; 173 (429) and 247 (503 `The model is overloaded`) are read from the text: `TerminalQuotaError: … Please retry in 3600s.` and `You have exhausted your daily quota on this model.` are usage limits (waited out; the daily one names no reset, so the wait grows), anything else is retried. The key is `GEMINI_API_KEY` with `security.auth.selectedType: \"gemini-api-key\"` in settings.json; `general.maxAttempts` there bounds its own retries (10 by default: about 222 s on a persistent 503). Usage: tokens from `stats.models.*.tokens` (`input`, the prompt less its cached part, plus `candidates` and `thoughts`); no cost.",
        verified: Some("0.61.0"),
        reports: Reports {
            tokens: true,
            cost: false,
        },
        usage: usage::gemini,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
    Preset {
        name: "qwen",
        install: "npm install -g @qwen-code/qwen-code",
        key: "OPENAI_API_KEY",
        argv: &["qwen", "--yolo", "--output-format", "stream-json"],
        prompt: PromptPlace::Stdin,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"\[API Error: 40[13]\b",
            r"Incorrect API key provided",
            r"Missing API key for OpenAI-compatible auth",
            r"No auth type is selected",
        ],
        usage_limit: &[
            r"exceeded your current quota",
            r"usage limit.*reset",
            r"quota will reset",
        ],
        transient: &[
            r"\[API Error: (408|409|429|5\d\d)\b",
            r#""type"\s*:\s*"result".*"is_error"\s*:\s*true"#,
        ],
        failed_on_success: &[r#""type"\s*:\s*"result".*"is_error"\s*:\s*true"#],
        doc: "Qwen Code 0.24.4 (npm `@qwen-code/qwen-code`, a fork of Gemini CLI), run for real against a local stand-in for the OpenAI chat completions API: `qwen --yolo --output-format stream-json` reads the prompt from stdin (a positional prompt that starts with `-` is taken for an option, and `--` before it leaves it unread) and prints one JSON event a line (`system` init, `assistant` with `tool_use` blocks, `user` with `tool_result`, a final `{\"type\":\"result\",\"is_error\":…}` with `usage`). `--yolo` approves its shell tool (`run_shell_command`) and its edits headless. It exits 1 for every failure, the reason in the final `result` event's `error.message`: `[API Error: 401 Incorrect API key provided: …]` stops at once, as do `Missing API key for OpenAI-compatible auth.` (no OPENAI_API_KEY), `No auth type is selected.` (set `security.auth.selectedType: \"openai\"` in ~/.qwen/settings.json, or add `--agent-arg --auth-type --agent-arg openai`) and a 403 (read on its status, not seen); `[API Error: 5xx …]` and a 429 rate limit are retried; OpenAI's quota (`[API Error: 429 You exceeded your current quota, please check your plan and billing details.]`, to which it adds `Possible quota limitations in place …`) is a usage limit with no reset time (waited out, the wait growing). Other usage-limit texts (`usage limit … reset`, `quota will reset`) are generic, not seen from it. The endpoint is OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL. Its own retries on a persistent 500: 28 calls over about 100 s with the default settings; with `model.generationConfig.maxRetries: 0` in settings.json, 7 calls over about 70 s (1.5 s doubling to 30 s; a 503's or 429's `retry-after` is honoured), which, as its code reads, no setting lowers. Usage: tokens from the final `result` event's `usage` (`input_tokens`, which counts the cached part `cache_read_input_tokens` reports, less that part, plus `output_tokens`); no cost.",
        verified: Some("0.24.4"),
        reports: Reports {
            tokens: true,
            cost: false,
        },
        usage: usage::qwen,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
    Preset {
        name: "pi",
        install: "npm install -g @mariozechner/pi-coding-agent",
        key: "ANTHROPIC_API_KEY",
        argv: &["pi", "--mode", "json", "-p", "{prompt}"],
        prompt: PromptPlace::Arg,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"No API key (found|provided)",
            r"authentication_error",
            r"\b401\b.*(unauthori[sz]ed|invalid)",
            r"Invalid API key",
        ],
        usage_limit: &[
            r"quota will reset",
            r"usage limit",
            r"reset(s)? (after|in) \d",
        ],
        transient: &[
            r#""type"\s*:\s*"auto_retry_end".*"success"\s*:\s*false"#,
            r"overloaded",
            r"rate.?limit",
            r"\b5\d\d\b",
        ],
        failed_on_success: &[],
        doc: "Pi (@mariozechner/pi-coding-agent 0.73.1): `pi --mode json -p <prompt>` answers once and prints one JSON event a line; it retries transient provider errors by itself (`auto_retry_start` / `auto_retry_end`, 3 tries: 2 s, 4 s, 8 s) and exits 1 when the final reply errored — `auto_retry_end` with `success: false` is when its own retries are spent. A provider wait longer than `retry.provider.maxRetryDelayMs` fails at once with the reset in words (\"quota will reset after 5h\"): a usage limit. Pi asks no permission for its tools (read, bash, edit, write), so nothing needs allowing. Read in the 0.73.1 package; the test suite runs the real CLI offline. Usage: each assistant `message_end` event's `usage` (`input`, which leaves out `cacheRead`, `output`, `cost.total`).",
        verified: Some("0.73.1"),
        reports: Reports {
            tokens: true,
            cost: true,
        },
        usage: usage::pi,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
    Preset {
        name: "opencode",
        install: "npm install -g opencode-ai",
        key: "ANTHROPIC_API_KEY",
        argv: &[
            "opencode",
            "run",
            "--format",
            "json",
            "--print-logs",
            "--log-level",
            "INFO",
            "{prompt}",
        ],
        prompt: PromptPlace::Arg,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        // On the `statusCode` field, never on bare digits: the same event carries the response
        // headers (content-length and the like).
        auth: &[
            r"ProviderAuthError",
            r#""statusCode"\s*:\s*(401|403)\b"#,
            r"API key is missing",
        ],
        usage_limit: &[
            r"reached your specified API usage limits",
            r"regain access on",
            r"usage limit.*reset",
            r"quota.*reset",
        ],
        transient: &[
            r#""statusCode"\s*:\s*(408|409|429|5\d\d)\b"#,
            r#""isRetryable"\s*:\s*true"#,
            r#""name"\s*:\s*"APIError""#,
            r"rate.?limit",
            r"overloaded",
        ],
        failed_on_success: &[r#""type"\s*:\s*"error""#],
        doc: "opencode 1.18.33 (npm `opencode-ai`, checked with the real CLI against a local stand-in API): `opencode run --format json <prompt>` prints JSON events a line (`step_start`, `tool_use`, `text`, `step_finish` with `tokens` and `cost`); `--print-logs --log-level INFO` adds its log lines on stderr (about 40 a turn): so it is not silent while it starts, and a silent wait shows. Every API error exits 1 with one `{\"type\":\"error\",\"error\":{\"name\":\"APIError\",\"data\":{\"message\":…,\"statusCode\":…,\"isRetryable\":…,\"responseHeaders\":…}}}` line, read on its `statusCode`: 401 `invalid x-api-key` and 403 stop at once, as does `ProviderAuthError` (no key); 429/5xx/529 `Overloaded` are transient (opencode itself first makes 6 calls, with backoff 2–30 s or the server's `retry-after-ms`); the spend limit (400 `You have reached your specified API usage limits. You will regain access on 2026-12-02 at 00:00 UTC.`) waits until that day. opencode waits out any `retry-after` inside the turn, silently and with no setting to bound it: its last line is then a `message=\"stream error\"` log line, and the idle timeout that follows is taken for a usage limit with no reset time, not a failed try. Permissions: its `bash`, `edit` and `write` tools run without asking inside the worktree; a path outside it asks, and headless `opencode run` auto-rejects the request (`permission requested: external_directory (…); auto-rejecting`) and ends the turn with exit 0 — add `--agent-arg --auto` to allow it. Point it at a model with `--agent-arg --model --agent-arg provider/model` or `model` in opencode.json.",
        verified: Some("1.18.33"),
        reports: Reports {
            tokens: true,
            cost: true,
        },
        in_turn_wait: &[r#"level=ERROR .*message="stream error""#],
        recovered: &[],
        wraps: false,
        own_files: &[],
        usage: usage::opencode,
    },
    Preset {
        name: "aider",
        install: "pipx install aider-chat",
        key: "OPENAI_API_KEY",
        argv: &[
            "aider",
            "--message",
            "{prompt}",
            "--yes-always",
            "--test-cmd",
            "goal verify",
            "--auto-test",
            "--no-auto-commits",
            "--no-dirty-commits",
            "--no-gitignore",
            "--no-pretty",
            "--no-stream",
            "--no-check-update",
            "--no-show-release-notes",
            "--no-analytics",
        ],
        prompt: PromptPlace::Arg,
        output: Output::Text,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"AuthenticationError",
            r"not able to authenticate you",
            r"API key.*(missing|not set|invalid)",
        ],
        usage_limit: &[
            r"usage limit.*reset",
            r"quota will reset",
            r"quota.*reset",
            r"exceeded your current quota",
        ],
        transient: &[
            r"RateLimitError",
            r"APIConnectionError",
            r"litellm\.APIError",
            r"InternalServerError",
            r"ServiceUnavailableError",
            r"BadGatewayError",
            r"overloaded",
            r"Timeout",
        ],
        // aider exits 0 after every error: a litellm error after its last model answer.
        failed_on_success: &[
            r"(?m)^litellm\.[A-Za-z]*Error:",
            r"not able to authenticate you",
        ],
        doc: "aider 0.86.2 (PyPI `aider-chat`, checked with the real CLI against a local stand-in API): `aider --message <prompt>` runs one instruction and exits. `--yes-always` does not let it run shell commands (it answers no to \"Run shell command?\"), so it verifies through `--test-cmd \"goal verify\" --auto-test`: after each edit it runs `goal verify` and feeds a failure back to the model. `--no-auto-commits --no-dirty-commits` leave the commits to `goal run` (each turn's work is in its iteration commit), `--no-gitignore` keeps it from editing .gitignore, and `.aider*` (its chat and input history, its tag cache) goes to `.git/info/exclude` so none of it is committed. It exits 0 after every error, printed on stdout and wrapped at 80 columns even with `--no-pretty` (joined before matching): `litellm.AuthenticationError` (401) stops at once; `litellm.RateLimitError: … You have hit your usage limit. Your quota will reset in 2 hours.` waits that long; `litellm.APIError: … Overloaded`, `ServiceUnavailableError` and other litellm errors are transient — after its own retries (0.25 s doubling past 60 s, about 90 s in all, which no setting changes). Use `--agent-arg --model --agent-arg <model>` and the provider's key (OPENAI_API_KEY, OPENAI_API_BASE …).",
        verified: Some("0.86.2"),
        reports: Reports {
            tokens: true,
            cost: true,
        },
        recovered: &[r"(?m)^Tokens: .* sent, .* received\."],
        wraps: true,
        own_files: &["/.aider*"],
        in_turn_wait: &[],
        usage: usage::aider,
    },
    Preset {
        name: "cursor",
        install: "curl -fsS https://cursor.com/install | bash",
        key: "CURSOR_API_KEY",
        argv: &[
            "cursor-agent",
            "-p",
            "--force",
            "--output-format",
            "stream-json",
            "{prompt}",
        ],
        prompt: PromptPlace::Arg,
        output: Output::JsonLines,
        ok_exits: &[],
        hard_exits: &[],
        auth: &[
            r"Authentication required",
            r"CURSOR_API_KEY",
            r"Not (logged|signed) in",
            r"\b401\b",
        ],
        usage_limit: &[r"usage limit.*reset", r"You've hit your (usage )?limit"],
        transient: &[r"rate.?limit", r"overloaded", r"\b5\d\d\b"],
        failed_on_success: &[r#""type"\s*:\s*"result".*"is_error"\s*:\s*true"#],
        doc: "Cursor CLI: `cursor-agent -p <prompt> --output-format stream-json` prints JSON events a line (`system`, `assistant`, `tool_call`, a final `result` with `is_error`). `--force` allows commands unless a rule denies them, which it needs to run `goal` headless. Authentication is `cursor-agent login` or `CURSOR_API_KEY`. Error texts are from users' reports and cursor.com/docs/cli, not a run of the real CLI (uncertain). Unverified: the Cursor CLI is not published to a package registry, so this preset was never run against it in the tests; its usage reports are not read.",
        verified: None,
        reports: NO_USAGE,
        usage: usage::none,
        recovered: &[],
        wraps: false,
        in_turn_wait: &[],
        own_files: &[],
    },
];

/// The preset called `name`.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names of every preset, for help and errors.
pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.name).collect()
}

pub use super::classify::{Patterns, TurnVerdict, last_message, reset_time};

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;

    #[test]
    fn verified_presets_name_their_version_and_usage() {
        for (name, version) in [("opencode", "1.18.33"), ("aider", "0.86.2")] {
            let p = preset(name).unwrap();
            assert_eq!(p.verified, Some(version), "{name}");
            assert!(p.doc.contains(version), "{name}");
            assert_eq!(
                p.reports,
                Reports {
                    tokens: true,
                    cost: true
                },
                "{name}"
            );
        }
        assert_eq!(preset("aider").unwrap().own_files, &["/.aider*"]);
    }

    #[test]
    fn verified_versions_are_the_ones_the_tests_install() {
        // (preset, the test package.json that pins its CLI, the npm package)
        let pinned = [
            (
                "claude",
                include_str!("../../tests/fixtures/agents/claude/package.json"),
                "@anthropic-ai/claude-code",
            ),
            (
                "codex",
                include_str!("../../tests/fixtures/agents/codex/package.json"),
                "@openai/codex",
            ),
            (
                "gemini",
                include_str!("../../tests/fixtures/agents/gemini/package.json"),
                "@google/gemini-cli",
            ),
            (
                "qwen",
                include_str!("../../tests/fixtures/agents/qwen/package.json"),
                "@qwen-code/qwen-code",
            ),
            (
                "pi",
                include_str!("../../integrations/pi/package.json"),
                "@mariozechner/pi-coding-agent",
            ),
        ];
        for (name, manifest, package) in pinned {
            let manifest: serde_json::Value = serde_json::from_str(manifest).unwrap();
            let version = ["devDependencies", "dependencies"]
                .iter()
                .find_map(|k| manifest[k][package].as_str())
                .unwrap_or_else(|| panic!("{name}: {package} is not pinned"));
            let version = version.trim_start_matches(['^', '~']);
            assert_eq!(preset(name).unwrap().verified, Some(version), "{name}");
        }
        let cursor = preset("cursor").unwrap();
        assert_eq!(cursor.verified, None);
        assert!(cursor.doc.contains("Unverified"));
        for p in PRESETS {
            if p.reports.cost || p.reports.tokens {
                assert!(
                    p.verified.is_some(),
                    "{}: usage read from an unverified CLI",
                    p.name
                );
            }
        }
    }

    #[test]
    fn every_preset_is_documented_and_places_its_prompt() {
        for p in PRESETS {
            assert!(!p.doc.is_empty(), "{}", p.name);
            let has_slot = p.argv.contains(&"{prompt}");
            assert_eq!(has_slot, p.prompt == PromptPlace::Arg, "{}", p.name);
            for set in [p.auth, p.usage_limit, p.transient, p.failed_on_success] {
                for source in set {
                    assert!(Regex::new(source).is_ok(), "{}: {source}", p.name);
                }
            }
        }
    }
}
