//! What goal adds to a pin's run so that its runner names each test with its outcome: options that
//! change what the runner reports, never what it selects. pytest gets `-rfEsxXp` (a short summary
//! line per test, passes included), `python -m unittest` gets `-v`, `go test` `-v`, jest
//! `--verbose`, vitest `--reporter=verbose`; a pin that is a script (`make test`, `npm test`,
//! `sh run.sh`) gets the same through the runners' environment (`PYTEST_ADDOPTS`, `GOFLAGS`).
//! Every run of a pin gets them alike (verify, red, base, clean and audit runs), and the record
//! shows the command as it ran. Pure.

/// A pin's run as goal makes it: the command and the environment it adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Naming {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Naming {
    /// The command as it ran, for the record: the variables goal set, then the words (empty when
    /// goal added nothing).
    pub fn shown(&self, pin: &[String]) -> Vec<String> {
        if self.argv == pin && self.env.is_empty() {
            return Vec::new();
        }
        self.env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .chain(self.argv.iter().cloned())
            .collect()
    }
}

/// pytest's report option: a result line per test (failed, error, skipped, xfail, xpass, passed)
/// without the captured output of passing tests that `-rA` would add.
pub const PYTEST_REPORT: &str = "-rfEsxXp";

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_python(word: &str) -> bool {
    let b = base(word);
    b == "python" || b.starts_with("python3") || b == "python2"
}

/// Where the runner's own words start: past `env`, `VAR=value` words and `npx`/`uv run`/
/// `poetry run`/`pipenv run`/`pnpm exec` in front of it.
fn runner_at(pin: &[String]) -> usize {
    let mut i = 0;
    loop {
        let Some(w) = pin.get(i) else { return i };
        let next = pin.get(i + 1).map(String::as_str);
        i += match base(w) {
            "env" => 1,
            _ if w.contains('=') && !w.starts_with('-') => 1,
            "npx" | "bunx" => {
                1 + pin[i + 1..]
                    .iter()
                    .take_while(|a| a.starts_with('-'))
                    .count()
            }
            "uv" | "poetry" | "pipenv" if next == Some("run") => 2,
            "pnpm" | "yarn" if next == Some("exec") => 2,
            _ => return i,
        };
    }
}

/// Whether any of `words` is one of `flags`, or starts with one followed by `=`.
fn has(words: &[String], flags: &[&str]) -> bool {
    words.iter().any(|w| {
        flags
            .iter()
            .any(|f| w == f || w.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    })
}

/// Whether pytest's words already make it name each test (`-v`, or an `-r` naming passes).
fn pytest_names(words: &[String]) -> bool {
    words.iter().any(|w| {
        w == "--verbose"
            || (w.starts_with("-v") && w[1..].chars().all(|c| c == 'v'))
            || (w.starts_with("-r") && !w.starts_with("--") && (w.contains('A') || w.contains('p')))
    })
}

/// The run goal makes of `pin`, given the environment it runs in (`var`).
pub fn naming(pin: &[String], var: &dyn Fn(&str) -> Option<String>) -> Naming {
    let mut argv = pin.to_vec();
    let mut env = Vec::new();
    let i = runner_at(pin);
    let word = |k: usize| pin.get(i + k).map(String::as_str);
    let program = word(0).map(base).unwrap_or("");
    let rest = &pin[(i + 1).min(pin.len())..];
    match program {
        "pytest" | "py.test" => {
            if !pytest_names(rest) {
                argv.push(PYTEST_REPORT.into());
            }
        }
        _ if is_python(program) && word(1) == Some("-m") && word(2) == Some("pytest") => {
            if !pytest_names(&pin[i + 3..]) {
                argv.push(PYTEST_REPORT.into());
            }
        }
        _ if is_python(program) && word(1) == Some("-m") && word(2) == Some("unittest") => {
            if !has(&pin[i + 3..], &["-v", "--verbose"]) {
                argv.insert(i + 3, "-v".into());
            }
        }
        "go" if word(1) == Some("test") => {
            if !has(&pin[i + 2..], &["-v", "-json", "--json"]) {
                argv.insert(i + 2, "-v".into());
            }
        }
        "jest" => {
            if !has(rest, &["--verbose", "--json", "--silent", "--reporters"]) {
                argv.insert(i + 1, "--verbose".into());
            }
        }
        "vitest" => {
            if !has(rest, &["--reporter"]) {
                let at = if word(1) == Some("run") { i + 2 } else { i + 1 };
                argv.insert(at, "--reporter=verbose".into());
            }
        }
        // cargo test and nextest, node --test, tap: they name their tests already. Anything else
        // may be a script that runs pytest or go test: tell them through their environment.
        "cargo" | "node" | "tap" | "deno" | "bun" => {}
        _ => {
            let addopts = var("PYTEST_ADDOPTS").unwrap_or_default();
            let words: Vec<String> = addopts.split_whitespace().map(str::to_string).collect();
            if !pytest_names(&words) {
                env.push(("PYTEST_ADDOPTS".into(), join(&addopts, PYTEST_REPORT)));
            }
            let goflags = var("GOFLAGS").unwrap_or_default();
            let words: Vec<String> = goflags.split_whitespace().map(str::to_string).collect();
            if !has(&words, &["-v", "-json"]) {
                env.push(("GOFLAGS".into(), join(&goflags, "-v")));
            }
        }
    }
    Naming { argv, env }
}

fn join(existing: &str, added: &str) -> String {
    match existing.trim() {
        "" => added.to_string(),
        e => format!("{e} {added}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    /// A pin, the command goal runs, and the variables it adds.
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

    #[test]
    fn each_runner_gets_the_option_that_names_its_tests_and_nothing_else() {
        let none = |_: &str| None;
        let cases: &[Case] = &[
            (
                "pytest -q tests/test_a.py",
                "pytest -q tests/test_a.py -rfEsxXp",
                &[],
            ),
            (
                "python -m pytest tests",
                "python -m pytest tests -rfEsxXp",
                &[],
            ),
            (
                "python3.11 -m pytest -x",
                "python3.11 -m pytest -x -rfEsxXp",
                &[],
            ),
            ("pytest -v tests", "pytest -v tests", &[]),
            ("pytest -vv", "pytest -vv", &[]),
            ("pytest -rA", "pytest -rA", &[]),
            ("pytest -ra", "pytest -ra -rfEsxXp", &[]),
            ("pytest --verbose", "pytest --verbose", &[]),
            ("uv run pytest", "uv run pytest -rfEsxXp", &[]),
            (
                "python -m unittest tests.test_a",
                "python -m unittest -v tests.test_a",
                &[],
            ),
            (
                "python -m unittest discover -s tests",
                "python -m unittest -v discover -s tests",
                &[],
            ),
            ("python -m unittest -v", "python -m unittest -v", &[]),
            (
                "python -m unittest --verbose t",
                "python -m unittest --verbose t",
                &[],
            ),
            ("go test ./...", "go test -v ./...", &[]),
            ("go test -run TestA .", "go test -v -run TestA .", &[]),
            ("go test -v .", "go test -v .", &[]),
            ("go test -json ./...", "go test -json ./...", &[]),
            (
                "go vet ./...",
                "go vet ./...",
                &[("PYTEST_ADDOPTS", "-rfEsxXp"), ("GOFLAGS", "-v")],
            ),
            (
                "npx jest test/a.test.ts",
                "npx jest --verbose test/a.test.ts",
                &[],
            ),
            (
                "node_modules/.bin/jest --verbose",
                "node_modules/.bin/jest --verbose",
                &[],
            ),
            (
                "npx --no-install vitest run a.test.ts",
                "npx --no-install vitest run --reporter=verbose a.test.ts",
                &[],
            ),
            ("vitest --reporter=dot", "vitest --reporter=dot", &[]),
            (
                "vitest a.test.ts",
                "vitest --reporter=verbose a.test.ts",
                &[],
            ),
            ("cargo test --lib", "cargo test --lib", &[]),
            ("node --test test/", "node --test test/", &[]),
            (
                "make test",
                "make test",
                &[("PYTEST_ADDOPTS", "-rfEsxXp"), ("GOFLAGS", "-v")],
            ),
            ("env CI=1 pytest", "env CI=1 pytest -rfEsxXp", &[]),
        ];
        for (pin, want, env) in cases {
            let got = naming(&words(pin), &none);
            assert_eq!(got.argv, words(want), "{pin}");
            let want_env: Vec<(String, String)> = env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(got.env, want_env, "{pin}");
        }
    }

    #[test]
    fn a_scripts_environment_keeps_what_the_user_set() {
        let set = |k: &str| match k {
            "PYTEST_ADDOPTS" => Some("-x".to_string()),
            "GOFLAGS" => Some("-mod=mod".to_string()),
            _ => None,
        };
        let got = naming(&words("make test"), &set);
        assert_eq!(
            got.env,
            [
                ("PYTEST_ADDOPTS".to_string(), "-x -rfEsxXp".to_string()),
                ("GOFLAGS".to_string(), "-mod=mod -v".to_string())
            ]
        );
        let named = |k: &str| match k {
            "PYTEST_ADDOPTS" => Some("-v".to_string()),
            "GOFLAGS" => Some("-json".to_string()),
            _ => None,
        };
        assert_eq!(naming(&words("make test"), &named).env, []);
    }

    #[test]
    fn the_command_as_it_ran_is_shown_only_when_goal_added_to_it() {
        let none = |_: &str| None;
        let pin = words("cargo test");
        assert_eq!(naming(&pin, &none).shown(&pin), Vec::<String>::new());
        let pin = words("pytest -q");
        assert_eq!(naming(&pin, &none).shown(&pin), words("pytest -q -rfEsxXp"));
        let pin = words("make test");
        assert_eq!(
            naming(&pin, &none).shown(&pin),
            words("PYTEST_ADDOPTS=-rfEsxXp GOFLAGS=-v make test")
        );
    }
}
