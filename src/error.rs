//! One error type for every command, its exit code and the hint that says what to run next.

use std::path::PathBuf;

/// Everything that can stop a `goal` command. Each variant carries the facts a user needs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A goal file (GOAL.md, evidence.jsonl, …) that cannot be parsed. Never rewritten.
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// There is no goal file.
    #[error("no active goal ({path} does not exist)")]
    NoGoal { path: PathBuf },
    /// Started outside a git working tree.
    #[error("not a git repository: {dir}")]
    NotARepo {
        dir: PathBuf,
        #[source]
        source: git2::Error,
    },
    /// A bare repository has no working tree to keep a goal in.
    #[error("{dir} is a bare repository: goal needs a working tree")]
    BareRepo { dir: PathBuf },
    /// A merge, rebase, cherry-pick… is in progress.
    #[error("a {operation} is in progress in this repository")]
    RepoBusy { operation: String, hint: String },
    /// No author/committer identity is configured.
    #[error("no git identity is configured ({source})")]
    Identity {
        #[source]
        source: git2::Error,
    },
    /// A git lock file (index.lock, HEAD.lock, …) is in the way.
    #[error("git lock file {path} exists: another git process is running, or one was killed")]
    GitLock { path: PathBuf },
    /// Another goal process holds this worktree's lock.
    #[error(
        "another goal command is running in this worktree (lock {path} still held after {waited_ms} ms)"
    )]
    Locked { path: PathBuf, waited_ms: u64 },
    /// Any other libgit2 failure.
    #[error("git: {what}: {source}")]
    Git {
        what: String,
        #[source]
        source: git2::Error,
    },
    /// A file system failure.
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A goal path that resolves outside the worktree (through a symlink).
    #[error("{path} resolves outside the worktree ({target})")]
    OutsideWorktree { path: PathBuf, target: PathBuf },
    /// A criterion number the goal does not have (exit 2).
    #[error("there is no criterion {number}")]
    NoSuchCriterion { number: usize, count: usize },
    /// Bad arguments or state given by the user.
    #[error("{message}")]
    Usage { message: String, hint: String },
    /// Refused by a gate, or a negative answer (exit 1).
    #[error("{message}")]
    Refused { message: String, hint: String },
    /// `goal done` does not accept the goal on its evidence (exit 1): no criteria, a broken
    /// ledger, criteria not proven, no test run, or evidence the clean-up pass made stale.
    #[error("{message}")]
    NotProven {
        message: String,
        hint: String,
        /// What only a person's `--confirm` can accept (None: the agent can fix it).
        person: Option<String>,
    },
    /// The goal is blocked, so it cannot be changed this way (exit 1).
    #[error("the goal is blocked: {doing}")]
    Blocked { doing: String, hint: String },
    /// The goal is marked complete, so it cannot be changed this way (exit 1).
    #[error("the goal is complete: cannot {what}")]
    MarkedComplete { what: String },
    /// evidence.jsonl does not verify (exit 1): nothing more is appended to it (`appending`), or
    /// nothing in it counts.
    #[error("{}", if *appending {
        format!("{} does not verify ({reason}): nothing more is appended to a broken chain", path.display())
    } else {
        format!("evidence.jsonl does not verify: {reason}")
    })]
    BrokenLedger {
        path: PathBuf,
        reason: String,
        appending: bool,
    },
    /// A command that can never be evidence (it prints, or grades itself), given to `goal
    /// verify` or pinned to `criterion` (exit 1).
    #[error("{}", match criterion {
        Some(n) => format!("criterion {n}'s pin `{command}` is not evidence: {why}"),
        None => format!("`{command}` is not evidence: {why}"),
    })]
    NotEvidence {
        command: String,
        criterion: Option<usize>,
        why: String,
    },
    /// A criterion's pin that does not parse (exit 2).
    #[error("criterion {number}: {why}")]
    BadPin { number: usize, why: String },
    /// A command that cannot be pinned to a criterion (exit 1); `retry` is the command to run
    /// instead.
    #[error("{}", match criterion {
        Some(n) => format!("criterion {n}: `{command}` cannot be pinned: {why}"),
        None => format!("`{command}` cannot be pinned: {why}"),
    })]
    CannotPin {
        command: String,
        criterion: Option<usize>,
        why: String,
        retry: String,
    },
    /// goal's own gate refused a commit (exit 1), with the next command for each reason.
    #[error("{message}")]
    GateRefused { message: String, hints: Vec<String> },
    /// The command given to `goal verify` (or a deslop command) could not be started.
    #[error("cannot run `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// A tool a command needs is not installed (a mutation tool for `goal verify --mutants`).
    #[error("{tool} is not installed: `{install}`")]
    ToolMissing { tool: String, install: String },
    /// Invalid input to the retry judge.
    #[error("invalid_input: {message}")]
    InvalidInput { message: String },
    /// SIGINT or SIGTERM stopped a command `goal` was running (exit 128 + the signal).
    #[error(
        "interrupted by {signal}: the command and every process it started were stopped; nothing was recorded"
    )]
    Interrupted { signal: &'static str, code: u8 },
    /// One of the user's git hooks refused a goal commit (its output went to stderr).
    #[error("the {hook} hook ({path}) refused the commit ({status}); nothing was committed")]
    HookRefused {
        hook: String,
        path: PathBuf,
        status: String,
    },
    /// One of the user's git hooks could not be started.
    #[error("cannot run the {hook} hook {path}: {source}")]
    HookSpawn {
        hook: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Signing the commit as git config asks (`commit.gpgsign`) failed.
    #[error("signing the commit failed; nothing was committed:\n{output}")]
    SignFailed { output: String },
    /// Something goal itself got wrong (a value it made that it cannot write): a bug, not the
    /// user's input.
    #[error("internal error: {what} ({detail}); this is a bug in goal")]
    Internal { what: String, detail: String },
}

/// What kind of failure an error is, as `--json`'s `{"error": {"kind"}}` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input: a flag, a file's contents, a state the command cannot start from (exit 2).
    User,
    /// A negative answer: goal refuses, or something is not proven (exit 1).
    Refusal,
    /// A bug in goal (exit 2): its message says so and what to report.
    Internal,
    /// The machine: a file that cannot be read or written, git, a program that cannot start
    /// (exit 2).
    Environment,
    /// A signal stopped the command (exit 128 + the signal; `--json` calls it `environment`).
    Interrupted { code: u8 },
}

impl ErrorKind {
    /// The kind of a `goal` process that ended with `code` (-1: killed by a signal): 1 and a
    /// test command's own failing code (verify passes it on) are negative answers, 2 bad input,
    /// a signal the machine's.
    pub fn of_exit_code(code: i32) -> ErrorKind {
        match code {
            2 => ErrorKind::User,
            c if (129..256).contains(&c) => ErrorKind::Interrupted {
                code: u8::try_from(c).unwrap_or(130),
            },
            c if !(0..128).contains(&c) => ErrorKind::Environment,
            _ => ErrorKind::Refusal,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::User => "user",
            ErrorKind::Refusal => "refusal",
            ErrorKind::Internal => "internal",
            ErrorKind::Environment | ErrorKind::Interrupted { .. } => "environment",
        }
    }

    /// The one exit-code map: 1 for refusals and negative answers, 128 + the signal for a
    /// signal, 2 for everything else.
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Refusal => 1,
            ErrorKind::User | ErrorKind::Internal | ErrorKind::Environment => 2,
            ErrorKind::Interrupted { code } => code,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What to do about a bug in goal: report it, with what it needs.
fn internal_hint() -> String {
    format!(
        "please report it with the command you ran and `goal --version` ({}); nothing was changed by the step that failed",
        env!("CARGO_PKG_VERSION")
    )
}

impl Error {
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Usage {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn refused(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Refused {
            message: message.into(),
            hint: hint.into(),
        }
    }

    pub fn not_proven(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::NotProven {
            message: message.into(),
            hint: hint.into(),
            person: None,
        }
    }

    /// A refusal of `goal done` that only a person's `--confirm` lifts; `confirm` says what they
    /// accept with it.
    pub fn for_person(
        message: impl Into<String>,
        hint: impl Into<String>,
        confirm: impl Into<String>,
    ) -> Self {
        Error::NotProven {
            message: message.into(),
            hint: hint.into(),
            person: Some(confirm.into()),
        }
    }

    /// What a person must confirm to lift this refusal, when only they can.
    pub fn person_must_confirm(&self) -> Option<&str> {
        match self {
            Error::NotProven { person, .. } => person.as_deref(),
            _ => None,
        }
    }

    pub fn git(what: impl Into<String>) -> impl FnOnce(git2::Error) -> Error {
        let what = what.into();
        move |source| {
            if source.code() == git2::ErrorCode::Locked
                && let Some(path) = locked_path(source.message())
            {
                return Error::GitLock { path };
            }
            Error::Git { what, source }
        }
    }

    pub fn io(
        what: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { what, path, source }
    }

    /// Whether `goal done` answered no on the goal itself (its evidence, its status, the gate):
    /// the agent can act on it. Anything else (a hook, signing, a lock, I/O) is not its answer.
    pub fn is_done_refusal(&self) -> bool {
        matches!(
            self,
            Error::NotProven { .. } | Error::Blocked { .. } | Error::GateRefused { .. }
        )
    }

    /// Whether the goal is not in progress (gone, blocked, complete), so there is nothing to
    /// record a retry on.
    pub fn is_not_in_progress(&self) -> bool {
        matches!(
            self,
            Error::NoGoal { .. } | Error::Blocked { .. } | Error::MarkedComplete { .. }
        )
    }

    /// A bug in goal: `what` it was doing and the underlying `detail`.
    pub fn internal(what: impl Into<String>, detail: impl std::fmt::Display) -> Self {
        Error::Internal {
            what: what.into(),
            detail: detail.to_string(),
        }
    }

    /// What kind of failure this is: a refusal (exit 1), a bug, the machine's, bad input, or a
    /// signal. Every variant is named here, so a new one must be given its kind, and with it its
    /// exit code ([`ErrorKind::exit_code`]).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Internal { .. } => ErrorKind::Internal,
            Error::Io { .. }
            | Error::Git { .. }
            | Error::GitLock { .. }
            | Error::Spawn { .. }
            | Error::ToolMissing { .. } => ErrorKind::Environment,
            Error::Interrupted { code, .. } => ErrorKind::Interrupted { code: *code },
            // Negative answers the agent can act on, and states that stop a command without
            // anything being wrong with what was typed: another goal command running, a hook of
            // the user's that refused or could not start, signing that failed, a ledger that
            // does not verify.
            Error::NoGoal { .. }
            | Error::Refused { .. }
            | Error::NotProven { .. }
            | Error::Blocked { .. }
            | Error::MarkedComplete { .. }
            | Error::GateRefused { .. }
            | Error::BrokenLedger { .. }
            | Error::NotEvidence { .. }
            | Error::CannotPin { .. }
            | Error::Locked { .. }
            | Error::HookRefused { .. }
            | Error::HookSpawn { .. }
            | Error::SignFailed { .. } => ErrorKind::Refusal,
            Error::Parse { .. }
            | Error::NotARepo { .. }
            | Error::BareRepo { .. }
            | Error::RepoBusy { .. }
            | Error::Identity { .. }
            | Error::OutsideWorktree { .. }
            | Error::NoSuchCriterion { .. }
            | Error::Usage { .. }
            | Error::BadPin { .. }
            | Error::InvalidInput { .. } => ErrorKind::User,
        }
    }

    /// The exit code, which the kind decides.
    pub fn exit_code(&self) -> u8 {
        self.kind().exit_code()
    }

    /// The next command to run, when there is one.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Error::Parse { path, .. } => format!(
                "fix {} by hand (or restore it with `git checkout -- {}`); goal never rewrites a file it cannot parse",
                path.display(),
                path.display()
            ),
            Error::NoGoal { .. } => "start one with `goal init \"<goal>\" -c \"<criterion>\"`".into(),
            Error::Internal { .. } => internal_hint(),
            Error::NotARepo { .. } => "run goal inside a git working tree, or create one with `git init`".into(),
            Error::BareRepo { .. } => "clone it, or add a worktree with `git worktree add <dir>`, and run goal there".into(),
            Error::RepoBusy { hint, .. } => hint.clone(),
            Error::Identity { .. } => {
                "set one with `git config user.name \"Your Name\"` and `git config user.email you@example.com` (add --global for every repository)".into()
            }
            Error::GitLock { path } => format!(
                "if no git process is running, remove it with `rm {}`, then run the goal command again",
                path.display()
            ),
            Error::Locked { .. } => "wait for the other goal command to finish, then run this one again".into(),
            Error::Git { .. } => "check the repository with `git status` and `git fsck`".into(),
            Error::Io { .. } | Error::Interrupted { .. } => return None,
            Error::OutsideWorktree { path, .. } => format!(
                "replace the symlink {} with a regular file or folder inside the worktree",
                path.display()
            ),
            Error::NoSuchCriterion { count: 0, .. } => {
                "the goal has no criteria yet: add one with `goal criteria add \"<criterion>\"`".into()
            }
            Error::NoSuchCriterion { count, .. } => {
                format!("criteria are numbered 1 to {count}: see `goal status`")
            }
            Error::MarkedComplete { .. } => "finish it with `goal done`; if `goal done` refuses (a criterion is not proven), set it back to in-progress with `goal resume`".into(),
            Error::Usage { hint, .. }
            | Error::Refused { hint, .. }
            | Error::NotProven { hint, .. }
            | Error::Blocked { hint, .. } => return (!hint.is_empty()).then(|| hint.clone()),
            // One per line, under the first: `hint: a` then `      b`.
            Error::GateRefused { hints, .. } => {
                return (!hints.is_empty()).then(|| hints.join("\n      "));
            }
            Error::BrokenLedger { path, .. } => broken_ledger_hint(path),
            Error::NotEvidence { criterion: Some(n), .. } => {
                match crate::person::agent() {
                    None => format!("pin a real test: `goal criteria pin {n} --confirm -- <test command>`"),
                    Some(_) => crate::person::offer(
                        "pin a real test",
                        &format!("goal criteria pin {n} --confirm -- <test command>"),
                    ),
                }
            }
            Error::NotEvidence { criterion: None, .. } => {
                "goal verify -c <N> -- <the test command that checks it>".into()
            }
            Error::BadPin { number, .. } => {
                format!("fix the pin with `goal criteria pin {number} --confirm -- <command>`")
            }
            Error::CannotPin { retry, .. } => retry.clone(),
            Error::Spawn { program, .. } => format!("check that `{program}` is installed and on PATH"),
            Error::ToolMissing { install, .. } => {
                format!("install it (`{install}`), then run the command again; nothing was recorded")
            }
            Error::HookRefused { hook, .. } => format!(
                "fix what the {hook} hook reports above, then run the goal command again"
            ),
            Error::HookSpawn { path, .. } => format!(
                "make {} runnable (`chmod +x`, a valid `#!` line), or skip your hooks with `--no-verify`",
                path.display()
            ),
            Error::SignFailed { .. } => "check the key with `git config user.signingkey` and `git config gpg.format`, or stop signing here with `git config commit.gpgsign false`; then run the goal command again".into(),
            Error::InvalidInput { .. } => {
                "give {\"attempts\": [{\"outcome\": \"failure\", \"strategyId\": \"…\"}], \"policy\": {\"maxAttempts\": 3}}".into()
            }
        })
    }
}

/// What to do about an evidence.jsonl that does not verify.
pub fn broken_ledger_hint(rel: &std::path::Path) -> String {
    let aside = rel.with_file_name("evidence.broken.jsonl");
    format!(
        "set the broken file aside (it is kept, and no longer counts): `mv {rel} {aside}`, or, if it is committed, restore the committed copy with `git checkout -- {rel}`; then verify again",
        rel = rel.display(),
        aside = aside.display()
    )
}

/// The one rendering of a diagnostic on stderr: `goal: error: …`, then `hint: …` when there is a
/// next command to run.
pub fn diagnostic(message: &str, hint: Option<&str>) -> String {
    format!("goal: error: {}\n", plain(message, hint))
}

/// The diagnostic's own lines, without the `goal: error: ` prefix and the last newline: the
/// message, then `hint: …` when there is one (what `goal run` hands its agent as `goal done`'s
/// refusal).
pub fn plain(message: &str, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("{message}\nhint: {hint}"),
        None => message.to_string(),
    }
}

impl Error {
    /// This error as the diagnostic `goal` prints for it.
    pub fn render(&self) -> String {
        diagnostic(&self.to_string(), self.hint().as_deref())
    }

    /// This error as [`plain`] lines: the diagnostic without its prefix.
    pub fn render_plain(&self) -> String {
        plain(&self.to_string(), self.hint().as_deref())
    }
}

/// libgit2 says "failed to create locked file '/repo/.git/index.lock': File exists".
fn locked_path(message: &str) -> Option<PathBuf> {
    let start = message.find('\'')? + 1;
    let end = start + message[start..].find('\'')?;
    let path = &message[start..end];
    path.ends_with(".lock").then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which errors `goal run` hands back to the agent as `goal done`'s answer, and which mean
    /// the goal is not in progress for a retry: by variant, never by exit code (all are exit 1).
    #[test]
    fn refusals_by_variant() {
        let blocked = || Error::Blocked {
            doing: "x".into(),
            hint: String::new(),
        };
        // (error, a done refusal, not in progress, exit code)
        let cases: Vec<(Error, bool, bool, u8)> = vec![
            (Error::not_proven("x", ""), true, false, 1),
            (blocked(), true, true, 1),
            (
                Error::GateRefused {
                    message: "x".into(),
                    hints: Vec::new(),
                },
                true,
                false,
                1,
            ),
            (Error::MarkedComplete { what: "x".into() }, false, true, 1),
            (Error::NoGoal { path: "g".into() }, false, true, 1),
            (
                Error::SignFailed {
                    output: "no key".into(),
                },
                false,
                false,
                1,
            ),
            (
                Error::HookRefused {
                    hook: "pre-commit".into(),
                    path: "h".into(),
                    status: "exit 1".into(),
                },
                false,
                false,
                1,
            ),
            (
                Error::Locked {
                    path: "l".into(),
                    waited_ms: 1,
                },
                false,
                false,
                1,
            ),
            (Error::refused("x", ""), false, false, 1),
            (
                Error::NoSuchCriterion {
                    number: 3,
                    count: 2,
                },
                false,
                false,
                2,
            ),
        ];
        for (e, refusal, not_in_progress, code) in cases {
            assert_eq!(e.is_done_refusal(), refusal, "{e}");
            assert_eq!(e.is_not_in_progress(), not_in_progress, "{e}");
            assert_eq!(e.exit_code(), code, "{e}");
        }
    }

    #[test]
    fn no_such_criterion_says_the_range() {
        let none = Error::NoSuchCriterion {
            number: 1,
            count: 0,
        };
        assert_eq!(none.to_string(), "there is no criterion 1");
        assert!(none.hint().unwrap().contains("goal criteria add"));
        let some = Error::NoSuchCriterion {
            number: 5,
            count: 3,
        };
        assert_eq!(
            some.hint().as_deref(),
            Some("criteria are numbered 1 to 3: see `goal status`")
        );
    }

    #[test]
    fn exit_codes() {
        let cases: Vec<(Error, u8)> = vec![
            (Error::refused("x", ""), 1),
            (Error::NoGoal { path: "g".into() }, 1),
            (Error::usage("x", ""), 2),
            (
                Error::Parse {
                    path: "g".into(),
                    line: 1,
                    message: "m".into(),
                },
                2,
            ),
            (
                Error::InvalidInput {
                    message: "m".into(),
                },
                2,
            ),
            (
                Error::Interrupted {
                    signal: "SIGINT",
                    code: 130,
                },
                130,
            ),
        ];
        for (error, code) in cases {
            assert_eq!(error.exit_code(), code, "{error}");
        }
    }

    /// Every exit code the binary returns, by kind, and how `--json` and the MCP server name it
    /// (a test command's own exit code, which `goal verify` passes on, reads as a refusal).
    #[test]
    fn the_kind_decides_the_exit_code() {
        let cases = [
            (ErrorKind::Refusal, 1, "refusal"),
            (ErrorKind::User, 2, "user"),
            (ErrorKind::Internal, 2, "internal"),
            (ErrorKind::Environment, 2, "environment"),
            (ErrorKind::Interrupted { code: 130 }, 130, "environment"),
            (ErrorKind::Interrupted { code: 143 }, 143, "environment"),
        ];
        for (kind, code, name) in cases {
            assert_eq!(kind.exit_code(), code, "{kind:?}");
            assert_eq!(kind.as_str(), name, "{kind:?}");
        }
        let read_back = [
            (1, ErrorKind::Refusal),
            (2, ErrorKind::User),
            (101, ErrorKind::Refusal),
            (130, ErrorKind::Interrupted { code: 130 }),
            (143, ErrorKind::Interrupted { code: 143 }),
            (-1, ErrorKind::Environment),
        ];
        for (code, kind) in read_back {
            assert_eq!(ErrorKind::of_exit_code(code), kind, "{code}");
        }
    }

    /// Every error has a kind: refusals are exit 1, the machine's and goal's own bugs are named
    /// apart from bad input.
    #[test]
    fn kinds() {
        let io = || std::io::Error::other("disk full");
        let cases: Vec<(Error, ErrorKind)> = vec![
            (Error::refused("x", ""), ErrorKind::Refusal),
            (Error::NoGoal { path: "g".into() }, ErrorKind::Refusal),
            (Error::usage("x", ""), ErrorKind::User),
            (
                Error::InvalidInput {
                    message: "m".into(),
                },
                ErrorKind::User,
            ),
            (Error::internal("write JSON", "boom"), ErrorKind::Internal),
            (Error::io("write", "f")(io()), ErrorKind::Environment),
            (
                Error::Spawn {
                    program: "p".into(),
                    source: io(),
                },
                ErrorKind::Environment,
            ),
            (
                Error::Interrupted {
                    signal: "SIGINT",
                    code: 130,
                },
                ErrorKind::Interrupted { code: 130 },
            ),
        ];
        for (error, kind) in cases {
            assert_eq!(error.kind(), kind, "{error}");
            assert_eq!(error.exit_code(), kind.exit_code(), "{error}");
        }
        let bug = Error::internal("write the stop state", "key must be a string");
        assert!(bug.to_string().contains("this is a bug in goal"), "{bug}");
        assert_eq!(bug.exit_code(), 2);
        assert!(bug.hint().unwrap().contains("report it"));
    }

    /// The diagnostic and `goal run`'s plain refusal are the same lines, but for the prefix.
    #[test]
    fn diagnostic_and_plain_lines() {
        let refused = Error::not_proven("criterion 1 is not proven", "run `goal verify -c 1`");
        assert_eq!(
            refused.render(),
            "goal: error: criterion 1 is not proven\nhint: run `goal verify -c 1`\n"
        );
        assert_eq!(
            refused.render_plain(),
            "criterion 1 is not proven\nhint: run `goal verify -c 1`"
        );
        let io = Error::io("cannot read", "f")(std::io::Error::other("gone"));
        assert_eq!(io.render(), "goal: error: cannot read f: gone\n");
        assert_eq!(io.render_plain(), "cannot read f: gone");
    }

    #[test]
    fn lock_path_from_libgit2_message() {
        assert_eq!(
            locked_path("failed to create locked file '/r/.git/index.lock': File exists"),
            Some(PathBuf::from("/r/.git/index.lock"))
        );
        assert_eq!(locked_path("no quotes"), None);
    }

    /// The refusals that keep their facts: each one's text, hint and exit code, word for word as
    /// they were when they were strings.
    #[test]
    fn refusals_with_facts_as_a_table() {
        let cases: Vec<(Error, &str, &str, u8)> = vec![
            (
                Error::BrokenLedger {
                    path: ".agents/goal/evidence.jsonl".into(),
                    reason: "line 2: bad hash".into(),
                    appending: true,
                },
                ".agents/goal/evidence.jsonl does not verify (line 2: bad hash): nothing more is appended to a broken chain",
                "mv .agents/goal/evidence.jsonl",
                1,
            ),
            (
                Error::BrokenLedger {
                    path: ".agents/goal/evidence.jsonl".into(),
                    reason: "line 2: bad hash".into(),
                    appending: false,
                },
                "evidence.jsonl does not verify: line 2: bad hash",
                "mv .agents/goal/evidence.jsonl",
                1,
            ),
            (
                Error::NotEvidence {
                    command: "echo ok".into(),
                    criterion: None,
                    why: "it only prints".into(),
                },
                "`echo ok` is not evidence: it only prints",
                "goal verify -c <N> -- <the test command that checks it>",
                1,
            ),
            (
                Error::NotEvidence {
                    command: "true".into(),
                    criterion: Some(3),
                    why: "it only exits 0".into(),
                },
                "criterion 3's pin `true` is not evidence: it only exits 0",
                "pin a real test: `goal criteria pin 3 --confirm -- <test command>`",
                1,
            ),
            (
                Error::BadPin {
                    number: 2,
                    why: "the pin is empty".into(),
                },
                "criterion 2: the pin is empty",
                "fix the pin with `goal criteria pin 2 --confirm -- <command>`",
                2,
            ),
            (
                Error::CannotPin {
                    command: "echo".into(),
                    criterion: Some(1),
                    why: "it only prints".into(),
                    retry: "pin the test command that proves the criterion".into(),
                },
                "criterion 1: `echo` cannot be pinned: it only prints",
                "pin the test command that proves the criterion",
                1,
            ),
        ];
        for (error, message, hint, code) in cases {
            assert_eq!(error.to_string(), message);
            let got = error.hint().unwrap_or_default();
            assert!(got.contains(hint), "{got:?} lacks {hint:?}");
            assert_eq!(error.exit_code(), code, "{error}");
        }
    }
}
