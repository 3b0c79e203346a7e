//! Pinned verification commands: the `(verify: `<command>`)` (acceptance) or `(guard: `<command>`)`
//! (guard) a criterion may end with, and the rule that a command which only prints is never
//! evidence. Pure.

/// What a pin asks of its command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `(verify: …)`: fails on the code before the goal (red), passes at the end (green).
    Acceptance,
    /// `(guard: …)`: passes at the end, running no fewer tests than on the goal's base.
    Guard,
}

impl Kind {
    /// `acceptance` or `guard` (what status and done show).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Acceptance => "acceptance",
            Kind::Guard => "guard",
        }
    }

    /// The word inside the pin's parentheses: `verify` or `guard`.
    pub fn keyword(self) -> &'static str {
        match self {
            Kind::Acceptance => "verify",
            Kind::Guard => "guard",
        }
    }
}

/// The kind of a criterion as status and done show it: `acceptance`, `guard` or `unpinned` (also
/// for a pin that does not parse).
pub fn kind_name(text: &str) -> &'static str {
    kind(text).map_or("unpinned", Kind::as_str)
}

/// The kind of a criterion's valid pin; None when it has none.
pub fn kind(text: &str) -> Option<Kind> {
    parse(text).and_then(Result::ok).map(|p| p.kind)
}

/// A criterion's pinned command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub kind: Kind,
    /// The command as written between the backticks.
    pub command: String,
    /// The command split by shell-word rules (no shell ever runs it).
    pub argv: Vec<String>,
}

/// Where a pin sits in a criterion text: `(verify: `cmd`)` or `(guard: `cmd`)` at the very end,
/// ASCII or full-width parentheses, any spacing (Unicode whitespace) around the parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located<'a> {
    pub kind: Kind,
    /// The command as written between the backticks, untrimmed.
    pub command: &'a str,
    /// The byte offset of the opening parenthesis.
    pub start: usize,
}

/// Find the pin at the end of `text`, read backwards from the end. Written by hand rather than as
/// a regex: every `goal` command reads each criterion, and compiling the pattern cost a fifth of
/// `goal status`'s instructions.
pub fn locate(text: &str) -> Option<Located<'_>> {
    let rest = text.trim_end();
    let rest = rest
        .strip_suffix(')')
        .or_else(|| rest.strip_suffix('）'))?
        .trim_end();
    let rest = rest.strip_suffix('`')?;
    let open = rest.rfind('`')?;
    let command = &rest[open + 1..];
    let rest = rest[..open].trim_end().strip_suffix(':')?;
    let (rest, kind) = match rest.strip_suffix("verify") {
        Some(rest) => (rest, Kind::Acceptance),
        None => (rest.strip_suffix("guard")?, Kind::Guard),
    };
    let rest = rest.trim_end();
    let start = match rest.strip_suffix('(') {
        Some(before) => before.len(),
        None => rest.strip_suffix('（')?.len(),
    };
    Some(Located {
        kind,
        command,
        start,
    })
}

/// The pin of a criterion text: None when it has none, Some(Err) when the pin cannot be split
/// into words (an unbalanced quote) or is empty.
pub fn parse(text: &str) -> Option<Result<Pin, String>> {
    let located = locate(text)?;
    let kind = located.kind;
    let command = located.command.trim().to_string();
    if command.is_empty() {
        return Some(Err("the pinned command is empty".into()));
    }
    Some(match shell_words::split(&command) {
        Ok(argv) if !argv.is_empty() => Ok(Pin {
            kind,
            command,
            argv,
        }),
        Ok(_) => Err("the pinned command is empty".into()),
        Err(e) => Err(format!(
            "the pinned command `{command}` does not split into words: {e}"
        )),
    })
}

/// The argv of a criterion's pin, when it has a valid one.
pub fn argv(text: &str) -> Option<Vec<String>> {
    parse(text).and_then(Result::ok).map(|p| p.argv)
}

/// The criterion text without its pin (what the requirement says).
pub fn base(text: &str) -> &str {
    match locate(text) {
        Some(pin) => text[..pin.start].trim_end(),
        None => text,
    }
}

/// `text` with its pin replaced by (or set to) `argv`, keeping the pin's kind (acceptance for a
/// criterion that had none); None argv removes the pin.
pub fn with_pin(text: &str, argv: Option<&[String]>) -> String {
    let kind = parse(text)
        .and_then(Result::ok)
        .map_or(Kind::Acceptance, |p| p.kind);
    with_kind_pin(text, argv, kind)
}

/// `text` with its pin replaced by (or set to) `argv` as a pin of `kind`; None argv removes it.
pub fn with_kind_pin(text: &str, argv: Option<&[String]>, kind: Kind) -> String {
    let base = base(text);
    match argv {
        Some(argv) => format!("{base} ({}: `{}`)", kind.keyword(), render(argv)),
        None => base.to_string(),
    }
}

/// An argv as one shell-quoted command line (what a pin and a re-run line show).
pub fn render(argv: &[String]) -> String {
    shell_words::join(argv)
}

/// Check that a command can be written as a pin.
pub fn check_pinnable(argv: &[String]) -> Result<(), String> {
    if argv.is_empty() {
        return Err("the command is empty".into());
    }
    if render(argv).contains('`') {
        return Err("a pinned command cannot contain a backtick".into());
    }
    if let Some(why) = self_grading(argv) {
        return Err(why);
    }
    Ok(())
}

/// Commands that only print what they are given: they grade themselves.
const PRINTERS: &[&str] = &["echo", "printf", "true", ":", "cat", "yes"];
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh"];

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Why `argv` is a self-grading command (it only prints), or None. Only argv[0] and an inline
/// `-c` script are inspected; a script file is not read.
pub fn self_grading(argv: &[String]) -> Option<String> {
    let mut words = argv;
    // `env [NAME=value]... cmd` runs cmd.
    while let Some(first) = words.first() {
        if basename(first) == "env" || (words.len() > 1 && is_assignment(first)) {
            words = &words[1..];
        } else {
            break;
        }
    }
    let first = words.first()?;
    let name = basename(first);
    if PRINTERS.contains(&name) {
        return Some(format!(
            "`{name}` only prints (or does nothing): it proves nothing (run the test command that checks the criterion)"
        ));
    }
    if SHELLS.contains(&name) {
        let flag = words[1..]
            .iter()
            .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))?;
        let script = words.get(flag + 2)?;
        if script_only_prints(script) {
            return Some(format!(
                "`{name} -c` with a script made only of {} proves nothing (run the test command that checks the criterion)",
                PRINTERS.join("/")
            ));
        }
    }
    None
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// Whether every simple command of a shell script is a printer (or nothing).
fn script_only_prints(script: &str) -> bool {
    let mut any = false;
    for segment in segments(script) {
        let Ok(words) = shell_words::split(&segment) else {
            return false;
        };
        let words: Vec<&String> = words.iter().skip_while(|w| is_assignment(w)).collect();
        let Some(first) = words.first() else {
            continue;
        };
        let name = basename(first);
        if name == "exit" && words.get(1).is_none_or(|c| c.as_str() == "0") {
            continue;
        }
        if !PRINTERS.contains(&name) {
            return false;
        }
        any = true;
    }
    any
}

/// Split a script at unquoted `;`, `&`, `|` and newlines (quote- and escape-aware).
fn segments(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut single, mut double, mut escaped) = (false, false, false);
    let chars: Vec<char> = script.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        // `>&2`, `<&0` and `&>file` are redirections, not a background `&`.
        let redirect = c == '&'
            && (i
                .checked_sub(1)
                .and_then(|j| chars.get(j))
                .is_some_and(|p| *p == '>' || *p == '<')
                || chars.get(i + 1) == Some(&'>'));
        if escaped {
            escaped = false;
            current.push(c);
            continue;
        }
        match c {
            '\\' if !single => {
                escaped = true;
                current.push(c);
            }
            '\'' if !double => {
                single = !single;
                current.push(c);
            }
            '"' if !single => {
                double = !double;
                current.push(c);
            }
            '&' if redirect => current.push(c),
            ';' | '&' | '|' | '\n' if !single && !double => {
                out.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    out.push(current);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written reader finds exactly what the pattern it replaced found.
    #[test]
    fn locate_agrees_with_the_pattern_it_replaced() {
        let pattern =
            regex::Regex::new(r"[(（]\s*(verify|guard):\s*`([^`]*)`\s*[)）]\s*$").unwrap();
        let cases = [
            "a (verify: `cargo test a`)",
            "a (verify:`x`)",
            "a   (  guard:   `make  lint`  )  \n",
            "a （verify: `x`）",
            "a （ guard :`x`）",
            "a (verify : `x`)",
            "a (Verify: `x`)",
            "a (verify: `x` `y`)",
            "a (verify: `x`) (guard: `y`)",
            "a (guard: `y`) tail",
            "a (verify: ``)",
            "a (verify: `   `)",
            "(verify: `x`)",
            "a verify: `x`)",
            "a (verify: `x`",
            "a (verify: x)",
            "a (unverify: `x`)",
            "a (\u{3000}verify:\u{3000}`x`\u{3000})\u{3000}",
            "a (verify: `é ü`)",
            "a ((verify: `x`))",
            "a (verify: `x`))",
            "plain text",
            "",
            ")",
            "`)",
            "``)",
        ];
        for text in cases {
            let want = pattern.captures(text).map(|c| {
                let kind = if &c[1] == "guard" {
                    Kind::Guard
                } else {
                    Kind::Acceptance
                };
                (kind, c.get(2).unwrap().as_str(), c.get(0).unwrap().start())
            });
            let got = locate(text).map(|l| (l.kind, l.command, l.start));
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn pins_parse_from_any_spacing() {
        // (criterion text, pinned command or None, base text)
        let cases: &[(&str, Option<&str>, &str)] = &[
            (
                "Excess requests return 429 (verify: `cargo test rate_limit`)",
                Some("cargo test rate_limit"),
                "Excess requests return 429",
            ),
            (
                "Excess requests return 429 (verify:`cargo test rate_limit`)",
                Some("cargo test rate_limit"),
                "Excess requests return 429",
            ),
            (
                "Excess requests return 429   (  verify:   `cargo test  rate_limit`  )  ",
                Some("cargo test  rate_limit"),
                "Excess requests return 429",
            ),
            (
                "`pytest` runs and `tox` too (verify: `pytest -q tests/test_div.py`)",
                Some("pytest -q tests/test_div.py"),
                "`pytest` runs and `tox` too",
            ),
            (
                "超额请求返回 429（verify: `cargo test 限流`）",
                Some("cargo test 限流"),
                "超额请求返回 429",
            ),
            (
                "The linter is clean (guard: `cargo clippy -- -D warnings`)",
                Some("cargo clippy -- -D warnings"),
                "The linter is clean",
            ),
            (
                "No pin here (see `cargo test`)",
                None,
                "No pin here (see `cargo test`)",
            ),
            (
                "A pin in the middle (verify: `x`) is not a pin, trailing text",
                None,
                "A pin in the middle (verify: `x`) is not a pin, trailing text",
            ),
        ];
        for (text, pinned, base_text) in cases {
            let got = parse(text).map(|p| p.map(|p| p.command));
            assert_eq!(got, pinned.map(|p| Ok(p.to_string())), "{text}");
            assert_eq!(base(text), *base_text, "{text}");
        }
    }

    #[test]
    fn pins_tell_their_kind() {
        // (criterion text, kind name)
        let cases: &[(&str, &str)] = &[
            ("a (verify: `pytest -q`)", "acceptance"),
            ("a (guard: `ruff check .`)", "guard"),
            ("a（guard: `ruff check .`）", "guard"),
            ("a (guard:`ruff`)  ", "guard"),
            ("a (see `pytest`)", "unpinned"),
            ("a (guard: ``)", "unpinned"),
            ("a (Guard: `ruff`)", "unpinned"),
        ];
        for (text, want) in cases {
            assert_eq!(kind_name(text), *want, "{text}");
        }
        let guard = "Lint (guard: `ruff check .`)";
        let argv: Vec<String> = vec!["ruff".into(), "check".into(), "src".into()];
        assert_eq!(
            with_pin(guard, Some(&argv)),
            "Lint (guard: `ruff check src`)"
        );
        assert_eq!(
            with_kind_pin(guard, Some(&argv), Kind::Acceptance),
            "Lint (verify: `ruff check src`)"
        );
        assert_eq!(base(guard), "Lint");
    }

    #[test]
    fn pin_argv_follows_shell_words() {
        let text = r#"Division works (verify: `pytest -k "div and not zero" tests/`)"#;
        assert_eq!(
            argv(text).unwrap(),
            ["pytest", "-k", "div and not zero", "tests/"]
        );
        assert!(parse("x (verify: `pytest \"unbalanced`)").unwrap().is_err());
        assert!(parse("x (verify: ``)").unwrap().is_err());
    }

    #[test]
    fn with_pin_round_trips() {
        let argv: Vec<String> = ["pytest", "-k", "a b"].map(String::from).to_vec();
        let text = with_pin("Division works", Some(&argv));
        assert_eq!(text, "Division works (verify: `pytest -k 'a b'`)");
        assert_eq!(super::argv(&text).unwrap(), argv);
        assert_eq!(with_pin(&text, None), "Division works");
        let other: Vec<String> = vec!["cargo".into(), "test".into()];
        assert_eq!(
            with_pin(&text, Some(&other)),
            "Division works (verify: `cargo test`)"
        );
    }

    #[test]
    fn self_grading_commands() {
        let cases: &[(&[&str], bool)] = &[
            (&["echo", "test result: ok. 5 passed; 0 failed"], true),
            (&["/bin/echo", "1 passed"], true),
            (&["printf", "ok"], true),
            (&["true"], true),
            (&[":"], true),
            (&["cat", "canned-output.txt"], true),
            (&["yes"], true),
            (&["env", "FOO=1", "echo", "hi"], true),
            (
                &["sh", "-c", "echo 'test result: ok. 5 passed; 0 failed'"],
                true,
            ),
            (
                &["bash", "-c", "echo \"5 passed; 0 failed\" && true; exit 0"],
                true,
            ),
            (&["bash", "-ec", "printf '1 passed\\n' | cat"], true),
            (&["sh", "-c", "cargo test; echo done"], false),
            (&["sh", "-c", "echo start && pytest -q"], false),
            (&["sh", "run-tests.sh"], false),
            (&["cargo", "test"], false),
            (&["pytest", "-q"], false),
            (&["./echo-tests"], false),
            (&["sh", "-c", "exit 1"], false),
            (&["bash", "-c", "echo \"1 passed, 0 failed\" >&2"], true),
            (
                &["bash", "-c", "echo 1 passed &> out.txt; cat out.txt"],
                true,
            ),
            (&["bash", "-c", "cargo test 2>&1 | tee log"], false),
        ];
        for (argv, want) in cases {
            let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
            assert_eq!(self_grading(&argv).is_some(), *want, "{argv:?}");
        }
    }
}
