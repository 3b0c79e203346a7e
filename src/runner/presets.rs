//! Agent presets for `goal run`, as data: one row per agent CLI (its headless command line, where
//! the prompt goes, its output format, and the patterns that tell a transient failure, a usage
//! limit with a reset time and an auth/config failure apart), plus the pure classifier over them.
//!
//! Most agent CLIs exit 1 for every failure, so the output decides. Sources are named per row;
//! where a fact comes from users' reports rather than a run of the real CLI, the row says so.

use regex::Regex;
use std::sync::OnceLock;

pub use super::usage::Reports;

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
    /// The CLI version this row was checked against, the real CLI run offline in the tests
    /// (None: unverified).
    pub verified: Option<&'static str>,
    /// What the CLI reports of its usage (read by [`super::usage::usage`]).
    pub reports: Reports,
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
}

/// The defaults of the fields most presets leave alone.
const UNVERIFIED: Preset = Preset {
    name: "",
    argv: &[],
    prompt: PromptPlace::Arg,
    output: Output::Text,
    ok_exits: &[],
    hard_exits: &[],
    auth: &[],
    usage_limit: &[],
    transient: &[],
    failed_on_success: &[],
    doc: "",
    verified: None,
    reports: Reports {
        tokens: false,
        cost: false,
    },
    recovered: &[],
    wraps: false,
    in_turn_wait: &[],
    own_files: &[],
};

/// The levels of log lines (`timestamp=… level=INFO …`) that say nothing of a failure.
const NOTE_LEVEL: &[&str] = &[" level=INFO ", " level=DEBUG ", " level=WARN "];

/// Network failures any CLI may print.
const NETWORK: &[&str] = &[
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
            r"You've hit your (usage )?limit",
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
        doc: "Claude Code headless: `claude -p` reads the prompt from stdin; `--output-format stream-json --verbose` prints one JSON event a line: `{\"type\":\"system\",\"subtype\":\"api_retry\"}` while it retries by itself, a `rate_limit_event` whose `rate_limit_info.status` is `rejected` with `resetsAt` (Unix seconds) at a usage limit, and a final `{\"type\":\"result\",\"is_error\":…}`; it exits 1 for every failure (529 overloaded → `API Error: 529 overloaded_error`, 429 → `API Error: Request rejected (429) · rate_limit_error`, 401 → `Failed to authenticate. API Error: 401 authentication_error`; checked with the real CLI 2.1.x against a local stand-in API). Tools: headless Claude Code may use no tool that is not allowed, and as root it refuses `--dangerously-skip-permissions` and `--permission-mode bypassPermissions`, so the preset allows `Bash,Edit,MultiEdit,Write,Read,Glob,Grep,LS,TodoWrite` with `--allowedTools` (works as root). Add `--agent-arg --model --agent-arg <model>` for a model.",
        ..UNVERIFIED
    },
    Preset {
        name: "codex",
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
            r"You've hit your usage limit",
            r"usage_limit_(reached|exceeded)",
            r"usageLimitExceeded",
        ],
        transient: &[
            r#""type"\s*:\s*"turn\.failed""#,
            r"stream disconnected",
            r"error sending request",
            r"\b5\d\d (Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b",
            r"server_?overloaded|serverOverloaded",
            r"429 Too Many Requests|rate limit",
        ],
        failed_on_success: &[r#""type"\s*:\s*"turn\.failed""#],
        doc: "Codex CLI: `codex exec --json <prompt>` prints JSON events a line (`thread.started`, `turn.started`, `item.completed`, `turn.completed`; a failure is `turn.failed` and/or `error`, whose only detail is a message string — codex issue #22570). `--dangerously-bypass-approvals-and-sandbox` lets it run `goal` (which writes under `.git/`) with no approval prompt; `--full-auto` keeps a workspace-write sandbox, which may refuse writes to `.git` (uncertain, version-dependent: check `codex exec --help`). Message texts (usage limit \"You've hit your usage limit … try again in …\", 401) are from users' reports, not a run of the real CLI.",
        ..UNVERIFIED
    },
    Preset {
        name: "gemini",
        argv: &[
            "gemini",
            "--output-format",
            "json",
            "--yolo",
            "-p",
            "{prompt}",
        ],
        prompt: PromptPlace::Arg,
        output: Output::Json,
        ok_exits: &[53],
        hard_exits: &[42],
        auth: &[
            r"API key not valid",
            r"UNAUTHENTICATED",
            r"PERMISSION_DENIED",
            r"GEMINI_API_KEY.*(not (set|found))",
            r"(Please )?set an Auth method",
        ],
        usage_limit: &[r"Quota exceeded.*(retry|reset)", r"usage limit.*reset"],
        transient: &[
            r"RESOURCE_EXHAUSTED",
            r"\b429\b",
            r"\bUNAVAILABLE\b",
            r"\b50[0-4]\b",
            r"model is overloaded",
        ],
        failed_on_success: &[],
        doc: "Gemini CLI: `gemini -p <prompt> --output-format json` answers once with one JSON object (`response`, `stats`, `error` when it failed); exit codes 0 success, 1 general or API failure, 42 bad input (stops `goal run` at once), 53 turn limit exceeded (the turn ended; recorded as an iteration) — geminicli.com/docs/cli/headless. `--yolo` approves every tool call, which it needs to run `goal` headless (in non-interactive mode a call that would ask is denied). Error texts (`RESOURCE_EXHAUSTED`, `API key not valid`) are Google API errors from users' reports, not a run of the real CLI.",
        ..UNVERIFIED
    },
    Preset {
        name: "pi",
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
        doc: "Pi (@mariozechner/pi-coding-agent 0.73.1): `pi --mode json -p <prompt>` answers once and prints one JSON event a line; it retries transient provider errors by itself (`auto_retry_start` / `auto_retry_end`, 3 tries: 2 s, 4 s, 8 s) and exits 1 when the final reply errored — `auto_retry_end` with `success: false` is when its own retries are spent. A provider wait longer than `retry.provider.maxRetryDelayMs` fails at once with the reset in words (\"quota will reset after 5h\"): a usage limit. Pi asks no permission for its tools (read, bash, edit, write), so nothing needs allowing. Read in the 0.73.1 package; the test suite runs the real CLI offline.",
        ..UNVERIFIED
    },
    Preset {
        name: "opencode",
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
        ..UNVERIFIED
    },
    Preset {
        name: "aider",
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
        ..UNVERIFIED
    },
    Preset {
        name: "cursor",
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
        doc: "Cursor CLI: `cursor-agent -p <prompt> --output-format stream-json` prints JSON events a line (`system`, `assistant`, `tool_call`, a final `result` with `is_error`). `--force` allows commands unless a rule denies them, which it needs to run `goal` headless. Authentication is `cursor-agent login` or `CURSOR_API_KEY`. Error texts are from users' reports and cursor.com/docs/cli, not a run of the real CLI (uncertain).",
        ..UNVERIFIED
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

/// What a turn's exit code and output say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The turn ended normally.
    Ok,
    /// A failed turn: retried with backoff. The text says why.
    Failed(String),
    /// A usage limit; `resets_at_ms`: when it resets (Unix ms), if the output says.
    UsageLimit {
        resets_at_ms: Option<u64>,
        why: String,
    },
    /// Auth or configuration failure: stop at once.
    Hard(String),
}

/// The compiled patterns of one preset, or of all of them (a custom command).
pub struct Patterns {
    ok_exits: Vec<i32>,
    hard_exits: Vec<i32>,
    auth: Vec<Regex>,
    usage_limit: Vec<Regex>,
    transient: Vec<Regex>,
    failed_on_success: Vec<Regex>,
    recovered: Vec<Regex>,
    wraps: bool,
    in_turn_wait: Vec<Regex>,
}

fn compile(sources: &[&str]) -> Vec<Regex> {
    sources
        .iter()
        .filter_map(|s| Regex::new(&format!("(?i){s}")).ok())
        .collect()
}

impl Patterns {
    pub fn of(preset: &Preset) -> Patterns {
        let mut transient = preset.transient.to_vec();
        transient.extend_from_slice(NETWORK);
        Patterns {
            ok_exits: preset.ok_exits.to_vec(),
            hard_exits: preset.hard_exits.to_vec(),
            auth: compile(preset.auth),
            usage_limit: compile(preset.usage_limit),
            transient: compile(&transient),
            failed_on_success: compile(preset.failed_on_success),
            recovered: compile(preset.recovered),
            wraps: preset.wraps,
            in_turn_wait: compile(preset.in_turn_wait),
        }
    }

    /// Every preset's patterns (for a `-- CMD` agent); exit codes keep their usual meaning.
    pub fn all() -> Patterns {
        let gather = |f: fn(&Preset) -> &'static [&'static str]| -> Vec<&'static str> {
            PRESETS.iter().flat_map(f).copied().collect()
        };
        let mut transient = gather(|p| p.transient);
        transient.extend_from_slice(NETWORK);
        Patterns {
            ok_exits: Vec::new(),
            hard_exits: Vec::new(),
            auth: compile(&gather(|p| p.auth)),
            usage_limit: compile(&gather(|p| p.usage_limit)),
            transient: compile(&transient),
            failed_on_success: compile(&gather(|p| p.failed_on_success)),
            recovered: Vec::new(),
            wraps: false,
            in_turn_wait: compile(&gather(|p| p.in_turn_wait)),
        }
    }

    /// Judge a turn by its exit code and output. `now_ms`: Unix ms, for "resets in 5h".
    pub fn classify(&self, exit_code: i32, output: &str, now_ms: u64) -> Verdict {
        let tail = tail_lines(output, 200);
        let joined;
        let tail = if self.wraps {
            joined = unwrap_lines(tail);
            joined.as_str()
        } else {
            tail
        };
        let found = |set: &[Regex], text: &str| {
            set.iter()
                .find_map(|r| r.find(text).map(|m| m.as_str().to_string()))
        };
        if exit_code == 0 || self.ok_exits.contains(&exit_code) {
            // What the CLI printed after it last went on from a failure of its own.
            let after = self
                .recovered
                .iter()
                .filter_map(|r| r.find_iter(tail).last().map(|m| m.end()))
                .max()
                .map_or(tail, |end| &tail[end..]);
            return match found(&self.failed_on_success, after) {
                None => Verdict::Ok,
                Some(_) => self.failure(
                    exit_code,
                    after,
                    now_ms,
                    found(&self.transient, after).as_deref(),
                ),
            };
        }
        if self.hard_exits.contains(&exit_code) {
            return Verdict::Hard(format!(
                "the agent exited {exit_code} (bad input or configuration)"
            ));
        }
        self.failure(
            exit_code,
            tail,
            now_ms,
            found(&self.transient, tail).as_deref(),
        )
    }

    /// What an idle timeout means: a CLI that printed it would sleep inside the turn (opencode
    /// waiting out a `retry-after`) is waiting for a limit to lift — a usage limit, with its reset
    /// time when the output names one — not a failed try. None: an idle timeout like any other.
    pub fn idle(&self, output: &str, now_ms: u64) -> Option<Verdict> {
        // The last line that is not a log line of no weight (opencode's INFO lines of its own
        // start-up tasks may come after the error).
        let last = output
            .lines()
            .rev()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .find(|l| !(l.starts_with("timestamp=") && NOTE_LEVEL.iter().any(|n| l.contains(n))))?;
        if !self.in_turn_wait.iter().any(|r| r.is_match(last)) {
            return None;
        }
        let tail = tail_lines(output, 200);
        Some(Verdict::UsageLimit {
            resets_at_ms: reset_time(tail, now_ms).or_else(|| regain_access(tail)),
            why: format!(
                "usage limit: the agent went quiet waiting inside its turn after an API error ({})",
                clip(last)
            ),
        })
    }

    fn failure(&self, exit_code: i32, tail: &str, now_ms: u64, transient: Option<&str>) -> Verdict {
        let found = |set: &[Regex]| set.iter().find_map(|r| r.find(tail).map(|m| m.as_str()));
        if let Some(m) = found(&self.auth) {
            return Verdict::Hard(format!("auth or configuration failure: {}", clip(m)));
        }
        if let Some(m) = found(&self.usage_limit) {
            return Verdict::UsageLimit {
                resets_at_ms: reset_time(tail, now_ms).or_else(|| regain_access(tail)),
                why: format!("usage limit: {}", clip(m)),
            };
        }
        Verdict::Failed(match transient {
            Some(m) => format!("transient error (exit {exit_code}): {}", clip(m)),
            None => format!("the agent exited {exit_code}"),
        })
    }
}

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
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

/// Anthropic's spend-limit day, as opencode prints it: `You will regain access on 2026-12-02 at
/// 00:00 UTC.` → that moment (Unix ms). Only this form; every other is [`reset_time`]'s.
pub fn regain_access(text: &str) -> Option<u64> {
    static REGAIN: OnceLock<Option<Regex>> = OnceLock::new();
    let regain = regex(
        &REGAIN,
        r"(?i)regain access on (\d{4}-\d\d-\d\d) at (\d\d:\d\d) (UTC|[A-Za-z_]+/[A-Za-z_]+)",
    )?;
    let c = regain.captures_iter(text).last()?;
    let at: jiff::civil::DateTime = format!("{}T{}", &c[1], &c[2]).parse().ok()?;
    let zone = jiff::tz::TimeZone::get(&c[3]).ok()?;
    let ms = at
        .to_zoned_datetime(zone)
        .ok()?
        .timestamp()
        .as_millisecond();
    u64::try_from(ms).ok()
}

/// The last `n` lines of `text`.
fn tail_lines(text: &str, n: usize) -> &str {
    let bytes = text.as_bytes();
    let mut seen = 0;
    for (i, b) in bytes.iter().enumerate().rev() {
        if *b == b'\n' && i + 1 < bytes.len() {
            seen += 1;
            if seen == n {
                return &text[i + 1..];
            }
        }
    }
    text
}

/// A regex compiled once; None only if the source (a constant here) does not compile.
fn regex(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

/// When a usage limit resets, as Unix ms, from what the agent printed: Claude's
/// `rate_limit_event` `resetsAt` (Unix seconds), the older `usage limit reached|<unix seconds>`,
/// an RFC 3339 time after "reset(s) at", or a duration after "reset(s) in/after", "try again in"
/// or "retry in" (`5h`, `2 hours 30 minutes`, `44.5s`).
pub fn reset_time(output: &str, now_ms: u64) -> Option<u64> {
    static RESETS_AT: OnceLock<Option<Regex>> = OnceLock::new();
    static PIPE: OnceLock<Option<Regex>> = OnceLock::new();
    static ISO: OnceLock<Option<Regex>> = OnceLock::new();
    static IN: OnceLock<Option<Regex>> = OnceLock::new();
    let seconds_to_ms = |s: &str| s.parse::<u64>().ok().map(|s| s.saturating_mul(1000));
    // The last rejected rate_limit_event wins.
    let mut found = None;
    for line in output.lines().filter(|l| l.contains("rate_limit_event")) {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(line) {
            let info = &value["rate_limit_info"];
            if info["status"] == "rejected"
                && let Some(at) = info["resetsAt"].as_u64()
            {
                found = Some(at.saturating_mul(1000));
            }
        }
    }
    if found.is_some() {
        return found;
    }
    let resets_at = regex(&RESETS_AT, r#"(?i)"resetsAt"\s*:\s*(\d{9,})"#)?;
    if let Some(c) = resets_at.captures_iter(output).last() {
        return seconds_to_ms(&c[1]);
    }
    let pipe = regex(&PIPE, r"(?i)usage limit reached\|(\d{9,})")?;
    if let Some(c) = pipe.captures_iter(output).last() {
        return seconds_to_ms(&c[1]);
    }
    let iso = regex(
        &ISO,
        r"(?i)resets?\s+at\s+(\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:\d\d))",
    )?;
    if let Some(c) = iso.captures_iter(output).last()
        && let Ok(t) = chrono::DateTime::parse_from_rfc3339(&c[1])
    {
        return u64::try_from(t.timestamp_millis()).ok();
    }
    if let Some(at) = clock_reset(output, now_ms) {
        return Some(at);
    }
    let within = regex(
        &IN,
        r"(?i)(?:resets?\s+(?:in|after)|try again in|retry in|retry after)\s+((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,and]*)+)",
    )?;
    if let Some(c) = within.captures_iter(output).last() {
        return duration_ms(&c[1]).map(|d| now_ms.saturating_add(d));
    }
    None
}

/// A reset given as a wall-clock time in a named zone — `resets 7pm (UTC)`, `will reset at 3pm
/// (Europe/London)`, `resets 14:30 (Asia/Shanghai)` — as the next such moment after `now_ms`.
fn clock_reset(output: &str, now_ms: u64) -> Option<u64> {
    static CLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    let clock = regex(
        &CLOCK,
        r"(?i)resets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*\(([A-Za-z_+\-/0-9]+)\)",
    )?;
    let c = clock.captures_iter(output).last()?;
    let mut hour: i8 = c[1].parse().ok()?;
    let minute: i8 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    match c.get(3).map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
        Some("pm") if hour < 12 => hour += 12,
        Some("am") if hour == 12 => hour = 0,
        _ => {}
    }
    if hour > 23 || minute > 59 {
        return None;
    }
    // The zone's rules come from the system's time zone database.
    let tz = jiff::tz::TimeZone::get(&c[4]).ok()?;
    let now = jiff::Timestamp::from_millisecond(i64::try_from(now_ms).ok()?)
        .ok()?
        .to_zoned_datetime(tz.clone());
    let today = now.date();
    let mut at = today
        .at(hour, minute, 0, 0)
        .to_zoned_datetime(tz.clone())
        .ok()?;
    if at.timestamp() <= now.timestamp() {
        at = today
            .tomorrow()
            .ok()?
            .at(hour, minute, 0, 0)
            .to_zoned_datetime(tz)
            .ok()?;
    }
    u64::try_from(at.timestamp().as_millisecond()).ok()
}

/// `2 hours 30 minutes`, `5h`, `44.5s`, `1d 2h` → ms.
fn duration_ms(text: &str) -> Option<u64> {
    static PART: OnceLock<Option<Regex>> = OnceLock::new();
    let part = regex(
        &PART,
        r"(?i)(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b",
    )?;
    let mut total = 0.0;
    let mut any = false;
    for c in part.captures_iter(text) {
        let n: f64 = c[1].parse().ok()?;
        let unit = c[2].to_ascii_lowercase();
        let seconds = match unit.chars().next() {
            Some('d') => 86_400.0,
            Some('h') => 3_600.0,
            Some('m') => 60.0,
            _ => 1.0,
        };
        total += n * seconds;
        any = true;
    }
    any.then(|| (total * 1000.0).ceil() as u64)
}

/// The agent's last message, from its output in any preset's format: the `result` of a final
/// result event (Claude, Cursor), Codex's last `agent_message`, Gemini's `response`, Pi's last
/// assistant text, opencode's last text part; else the last non-empty line.
pub fn last_message(output: &str) -> Option<String> {
    let mut last = None;
    let mut last_plain = None;
    for line in output.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('{')
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
        {
            if let Some(text) = message_of(&v) {
                last = Some(text);
            }
            continue;
        }
        // opencode's log lines (`--print-logs`) are not what the agent said.
        if !(line.starts_with("timestamp=") && line.contains(" level=")) {
            last_plain = Some(line.to_string());
        }
    }
    if last.is_none() && output.trim_start().starts_with('{') {
        // One JSON document over several lines (Gemini's --output-format json).
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(output.trim()) {
            last = message_of(&v);
        }
    }
    last.or_else(|| aider_reply(output))
        .or(last_plain)
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// aider's last answer: the lines before its last `Tokens: … sent, … received.` line, back to the
/// line of its own before them (its banner, an applied edit, a test-fix question, a retry).
fn aider_reply(output: &str) -> Option<String> {
    const OWN: &[&str] = &[
        "Tokens: ",
        "Applied edit to ",
        "Repo-map: ",
        "Git repo: ",
        "Model: ",
        "Aider v",
        "Attempt to fix",
        "Added ",
        "Retrying in ",
    ];
    let lines: Vec<&str> = output.lines().collect();
    let tokens = lines.iter().rposition(|l| {
        l.starts_with("Tokens: ") && l.contains(" sent, ") && l.contains(" received.")
    })?;
    let start = lines[..tokens]
        .iter()
        .rposition(|l| OWN.iter().any(|o| l.starts_with(o)))
        .map_or(0, |i| i + 1);
    // A file the prompt names, which aider offers to add to the chat, is printed first.
    let start = start
        + lines[start..tokens]
            .iter()
            .take_while(|l| {
                let l = l.trim();
                l.is_empty() || (l.contains('/') && !l.contains(char::is_whitespace))
            })
            .count();
    let reply = lines[start..tokens].join("\n");
    let reply = reply.trim();
    (!reply.is_empty()).then(|| reply.to_string())
}

fn message_of(v: &serde_json::Value) -> Option<String> {
    let s = |x: &serde_json::Value| {
        x.as_str()
            .map(str::to_string)
            .filter(|t| !t.trim().is_empty())
    };
    let text_blocks = |content: &serde_json::Value| -> Option<String> {
        let text: Vec<&str> = content
            .as_array()?
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        (!text.is_empty()).then(|| text.join("\n"))
    };
    match v["type"].as_str() {
        Some("result") => s(&v["result"]),
        Some("assistant") => text_blocks(&v["message"]["content"]),
        Some("item.completed") if v["item"]["type"] == "agent_message" => s(&v["item"]["text"]),
        Some("message_end") | Some("turn_end") if v["message"]["role"] == "assistant" => {
            text_blocks(&v["message"]["content"])
        }
        Some("agent_end") => v["messages"]
            .as_array()?
            .iter()
            .rev()
            .find(|m| m["role"] == "assistant")
            .and_then(|m| text_blocks(&m["content"])),
        Some("text") => s(&v["part"]["text"]),
        None => s(&v["response"]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;

    fn classify(agent: &str, exit: i32, output: &str) -> Verdict {
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

    fn kind(v: &Verdict) -> &'static str {
        match v {
            Verdict::Ok => "ok",
            Verdict::Failed(_) => "failed",
            Verdict::UsageLimit {
                resets_at_ms: Some(_),
                ..
            } => "usage-limit",
            Verdict::UsageLimit { .. } => "usage-limit-no-reset",
            Verdict::Hard(_) => "hard",
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
            // Claude Code 2.1.197, seen with the real CLI against tests/claude/fake_api.py.
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
            // Codex exec --json (users' reports).
            (
                "codex",
                1,
                r#"{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}"#,
                "failed",
            ),
            (
                "codex",
                1,
                r#"{"type":"error","message":"You've hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes."}"#,
                "usage-limit",
            ),
            (
                "codex",
                1,
                r#"{"type":"error","message":"unexpected status 401 Unauthorized: Missing bearer"}"#,
                "hard",
            ),
            (
                "codex",
                0,
                r#"{"type":"turn.failed","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests"}}"#,
                "failed",
            ),
            // Gemini CLI (docs: exit 1 API failure, 42 bad input, 53 turn limit).
            (
                "gemini",
                1,
                r#"{"error":{"type":"ApiError","message":"[API Error: RESOURCE_EXHAUSTED 429]"}}"#,
                "failed",
            ),
            (
                "gemini",
                1,
                r#"{"error":{"message":"API key not valid. Please pass a valid API key."}}"#,
                "hard",
            ),
            ("gemini", 42, "Error: unknown argument", "hard"),
            (
                "gemini",
                53,
                r#"{"response":"Reached the turn limit"}"#,
                "ok",
            ),
            (
                "gemini",
                1,
                "Quota exceeded for quota metric. Please retry in 44.5s.",
                "usage-limit",
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
    fn reset_times() {
        let cases: &[(&str, Option<u64>)] = &[
            (
                r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1800003600}}"#,
                Some(1_800_003_600_000),
            ),
            (
                "Claude AI usage limit reached|1800000042",
                Some(1_800_000_042_000),
            ),
            ("quota will reset after 5h", Some(NOW + 5 * 3_600_000)),
            ("try again in 2 hours 5 minutes.", Some(NOW + 7_500_000)),
            ("Please retry in 44.5s.", Some(NOW + 44_500)),
            ("resets at 2027-01-15T09:00:00Z", Some(1_800_003_600_000)),
            ("usage limit reached", None),
        ];
        for (text, want) in cases {
            assert_eq!(reset_time(text, NOW), *want, "{text}");
        }
    }

    #[test]
    fn wall_clock_resets_in_a_named_zone() {
        // 2026-12-01T10:00:00Z
        let now = 1_796_119_200_000u64;
        let h = 3_600_000u64;
        let cases: &[(&str, Option<u64>)] = &[
            (
                "You've hit your limit · resets 7pm (UTC)",
                Some(now + 9 * h),
            ),
            (
                "Claude usage limit reached. Your limit will reset at 3pm (Europe/London).",
                Some(now + 5 * h),
            ),
            ("resets 9am (UTC)", Some(now + 23 * h)),
            ("resets 12am (UTC)", Some(now + 14 * h)),
            (
                "resets 14:30 (Asia/Shanghai)",
                Some(now + 20 * h + 30 * 60_000),
            ),
            ("resets 7pm (Not/AZone)", None),
            ("resets 25pm (UTC)", None),
        ];
        for (text, want) in cases {
            assert_eq!(reset_time(text, now), *want, "{text}");
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
        // Each preset that claims a usage report has a reader for it.
        for p in PRESETS
            .iter()
            .filter(|p| p.reports.tokens || p.reports.cost)
        {
            assert!(
                super::super::usage::usage(p.name, "").is_some(),
                "{}",
                p.name
            );
        }
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
