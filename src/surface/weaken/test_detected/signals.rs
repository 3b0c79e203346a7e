//! What is a signal of a test run, by category: the runners' modules, variables and globals,
//! the sources they are read through, and the level of each (see [`Level`]).

use super::*;

/// Modules of test runners and their plugin machinery (a module name's top package, or a path
/// segment: `_pytest.main`, `site-packages/_pytest/`, `@jest/core`).
pub(super) const RUNNERS: &[&str] = &[
    "pytest",
    "_pytest",
    "py.test",
    "pluggy",
    "unittest",
    "nose",
    "nose2",
    "doctest",
    "hypothesis",
    "xdist",
    "pytest_xdist",
    "_jb_pytest_runner",
    "jest",
    "jest-worker",
    "jest-circus",
    "jest-runner",
    "vitest",
    "mocha",
    "jasmine",
    "ava",
    "tap",
    "node:test",
    "ts-jest",
];

/// Environment variables only a test runner, or `goal` running a turn, sets (a name starting
/// with one of these; `PYTEST_XDIST_` and `VITEST_` name a family).
pub(super) const RUNNER_ENV: &[&str] = &[
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    "PYTEST_XDIST_",
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "TEST_WORKER_INDEX",
    "TEST_PARALLEL_INDEX",
    "MOCHA_WORKER_ID",
    "GOAL_RUN",
    "GOAL_ITERATION",
    "GOAL_AGENT",
    "GOAL_RUN_AGENT",
];

/// Environment variables a CI service sets.
pub(super) const CI_ENV: &[&str] = &[
    "CI",
    "CONTINUOUS_INTEGRATION",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "TF_BUILD",
    "TEAMCITY_VERSION",
    "BITBUCKET_BUILD_NUMBER",
    "DRONE",
];

/// Environment variables naming the host, the working directory or the program.
pub(super) const WEAK_ENV: &[&str] = &["PWD", "OLDPWD", "HOSTNAME", "COMPUTERNAME", "_"];

/// Globals a JavaScript test runner defines.
pub(super) const TEST_GLOBALS: &[&str] = &[
    "it",
    "describe",
    "test",
    "expect",
    "jest",
    "vi",
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
    "suite",
    "before",
    "after",
    "fit",
    "xit",
    "xdescribe",
    "mocha",
    "jasmine",
];

/// Canonical names (see [`Meaning`]) whose value is a signal, by category.
pub(super) const NAMED: &[(&str, Level)] = &[
    // The runner's own answer.
    ("testing.Testing()", Level::Probe),
    // Process state a runner changes: fault handlers, tracing, captured output, warning
    // filters, the call stack, the build's information.
    ("faulthandler.is_enabled()", Level::State),
    ("sys.gettrace()", Level::State),
    ("sys.getprofile()", Level::State),
    ("threading.gettrace()", Level::State),
    ("sys.stdout.__class__", Level::State),
    ("sys.stderr.__class__", Level::State),
    ("sys.stdin.__class__", Level::State),
    ("warnings.filters", Level::State),
    ("inspect.stack()", Level::State),
    ("inspect.currentframe()", Level::State),
    ("inspect.getouterframes()", Level::State),
    ("inspect.trace()", Level::State),
    ("traceback.extract_stack()", Level::State),
    ("traceback.format_stack()", Level::State),
    ("traceback.walk_stack()", Level::State),
    ("sys._getframe()", Level::State),
    ("Error().stack", Level::State),
    ("Error.captureStackTrace()", Level::State),
    ("Error.prepareStackTrace", Level::State),
    ("console.trace()", Level::State),
    ("runtime/debug.ReadBuildInfo()", Level::State),
    ("runtime/debug.Stack()", Level::State),
    ("runtime.Caller()", Level::State),
    ("runtime.Callers()", Level::State),
    ("runtime.Stack()", Level::State),
    // The program's own name and which module is the program.
    ("sys.argv[0]", Level::Weak),
    ("sys.orig_argv", Level::Weak),
    ("sys.executable", Level::Weak),
    ("__main__.__file__", Level::Weak),
    ("process.argv[0]", Level::Weak),
    ("process.argv[1]", Level::Weak),
    ("process.argv0", Level::Weak),
    ("process.title", Level::Weak),
    ("process.mainModule", Level::Weak),
    ("require.main", Level::Weak),
    ("module.parent", Level::Weak),
    ("module.id", Level::Weak),
    ("os.Args[0]", Level::Weak),
    ("os.Executable()", Level::Weak),
    // The program's files, working directory and temporary folder.
    ("__file__", Level::Weak),
    ("__dirname", Level::Weak),
    ("__filename", Level::Weak),
    ("import.meta.url", Level::Weak),
    ("import.meta.filename", Level::Weak),
    ("import.meta.dirname", Level::Weak),
    ("os.getcwd()", Level::Weak),
    ("os.getcwdb()", Level::Weak),
    ("Path.cwd()", Level::Weak),
    ("pathlib.Path.cwd()", Level::Weak),
    ("tempfile.gettempdir()", Level::Weak),
    ("tempfile.gettempdirb()", Level::Weak),
    ("tempfile.tempdir", Level::Weak),
    ("process.cwd()", Level::Weak),
    ("os.tmpdir()", Level::Weak),
    ("os.Getwd()", Level::Weak),
    ("os.TempDir()", Level::Weak),
    // The host and the thread.
    ("socket.gethostname()", Level::Weak),
    ("socket.getfqdn()", Level::Weak),
    ("platform.node()", Level::Weak),
    ("platform.uname()", Level::Weak),
    ("os.uname()", Level::Weak),
    ("os.hostname()", Level::Weak),
    ("os.Hostname()", Level::Weak),
    ("threading.current_thread()", Level::Weak),
    ("threading.currentThread()", Level::Weak),
    ("threading.main_thread()", Level::Weak),
    ("threading.get_ident()", Level::Weak),
    ("worker_threads.threadId", Level::Weak),
    ("worker_threads.isMainThread", Level::Weak),
];

/// Where a constant naming a runner tells a test run: the modules loaded, the command line, the
/// runtime's own flags, the call stack, the environment, the globals.
pub(super) const SOURCES: &[&str] = &[
    "sys.modules",
    "sys.argv",
    "sys.orig_argv",
    "sys.executable",
    "sys.flags",
    "sys.meta_path",
    "importlib",
    "pkgutil",
    "inspect",
    "traceback",
    "process.argv",
    "process.argv0",
    "process.execArgv",
    "process.title",
    "process.mainModule",
    "require.cache",
    "require.main",
    "require.resolve",
    "module.children",
    "module.parent",
    "os.Args",
    "os.Executable",
    "flag",
    "runtime",
    "runtime/debug",
];

/// Where the runtime's own flags are (a `--test` flag there is the runner's; in `sys.argv` or
/// `process.argv` it is the program's).
pub(super) const FLAG_SOURCES: &[&str] = &[
    "process.execArgv",
    "os.Args",
    "flag",
    "sys.orig_argv",
    "sys.flags",
];

/// The environment, under any spelling of its access.
pub(super) const ENV_SOURCES: &[&str] = &[
    "os.environ",
    "os.environb",
    "os.getenv",
    "os.getenvb",
    "os.putenv",
    "os.Getenv",
    "os.LookupEnv",
    "os.Environ",
    "syscall.Getenv",
    "process.env",
    "import.meta.env",
    "Deno.env",
];

/// The global object, under any of its names.
pub(super) const GLOBALS: &[&str] = &["globalThis", "global", "window", "self"];

/// Whether a canonical name is `source` or something read through it (`sys.modules.get()`,
/// `os.Args[0]`, `runtime/debug.Stack()`).
pub(super) fn through(name: &str, sources: &[&str]) -> bool {
    sources.iter().any(|s| {
        name.strip_prefix(s)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[', '(', '/']))
    })
}

/// What a constant names, if it names something of a test run.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Named {
    /// A variable only a runner sets (counts alone).
    RunnerEnv,
    /// A prefix of one (`PYTEST_`), or a `GOAL_` variable: beside the environment.
    EnvPrefix,
    /// A CI service's variable: beside the environment.
    CiEnv,
    /// The host's or the working directory's variable: beside the environment.
    WeakEnv,
    /// A runner's module or its files (`_pytest`, `node:test`, `conftest`), the test binary's
    /// name (`.test`): beside any source or signal.
    Runner,
    /// A runner's flag (`--test`, `-test.v`, `test.run`): beside the runtime's own flags.
    Flag,
    /// A runner's global (`it`, `describe`): beside the global object.
    Global,
}

pub(super) fn named_constant(v: &str) -> Option<Named> {
    if v.is_empty() {
        return None;
    }
    if RUNNER_ENV.iter().any(|e| v.starts_with(e)) {
        return Some(Named::RunnerEnv);
    }
    let upper = v
        .chars()
        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit());
    if upper && CI_ENV.contains(&v) {
        return Some(Named::CiEnv);
    }
    if upper && WEAK_ENV.contains(&v) {
        return Some(Named::WeakEnv);
    }
    if upper
        && v.len() >= 4
        && (RUNNER_ENV.iter().any(|e| e.starts_with(v)) || v.starts_with("GOAL_"))
    {
        return Some(Named::EnvPrefix);
    }
    if v.starts_with("--test") || v.starts_with("-test.") || v.starts_with("test.") {
        return Some(Named::Flag);
    }
    let lower = v.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        ".test" | ".test.exe" | "_test.go" | "conftest" | "conftest.py"
    ) || lower.contains("node:test")
        || lower.contains("/conftest")
    {
        return Some(Named::Runner);
    }
    let runner = lower.split(['/', '\\']).any(|seg| {
        let seg = seg.trim_start_matches('@');
        RUNNERS.contains(&seg)
            || seg
                .split(['.', ':'])
                .next()
                .is_some_and(|top| top != "testing" && RUNNERS.contains(&top))
    });
    if runner {
        return Some(Named::Runner);
    }
    TEST_GLOBALS.contains(&v).then_some(Named::Global)
}

/// Whether some node of `stmt` other than `except` reads one of `sources` (after following
/// names), or is a signal (`any_signal`).
pub(super) fn beside(
    m: &Meaning,
    stmt: Node,
    except: Node,
    sources: &[&str],
    any_signal: bool,
) -> bool {
    descendants(stmt).into_iter().any(|d| {
        // Not the name being bound (it carries what this statement finds).
        let target = m.up(d).is_some_and(|p| {
            ["left", "name"]
                .iter()
                .any(|f| p.child_by_field_name(f).is_some_and(|t| t.id() == d.id()))
                && matches!(
                    p.kind(),
                    "assignment" | "variable_declarator" | "named_expression"
                )
        });
        if d.id() == except.id() || target {
            return false;
        }
        match m.eval(d) {
            Some(Val::Name(n)) => {
                through(&n, sources) || (any_signal && named_level(m, d, &n).is_some())
            }
            Some(Val::Sig(_)) => any_signal,
            _ => false,
        }
    })
}

/// The level of a canonical name, or of the call or member it ends in.
pub(super) fn named_level(m: &Meaning, node: Node, name: &str) -> Option<Level> {
    if let Some((_, l)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(*l);
    }
    // The globals of a runner, read off the global object.
    if let Some((g, x)) = name.split_once('.')
        && GLOBALS.contains(&g)
        && TEST_GLOBALS.contains(&x)
    {
        return Some(Level::Probe);
    }
    // The type or class of the standard streams (a runner captures them).
    if matches!(name, "type()" | "isinstance()")
        && let Some(arg) = node
            .child_by_field_name("arguments")
            .and_then(|a| named(a).first().copied())
        && let Some(Val::Name(a)) = m.eval(arg)
        && matches!(
            a.as_str(),
            "sys.stdout" | "sys.stderr" | "sys.stdin" | "sys.__stdout__" | "sys.__stderr__"
        )
    {
        return Some(Level::State);
    }
    None
}

/// Whether `node` is a signal, and whether it is one only through a name bound to one
/// (`derived`): its level and that.
pub(super) fn signal(m: &Meaning, node: Node) -> Option<(Level, bool)> {
    let src = m.src;
    // A setting named "test" compared: what a name bound to it carries.
    if aware(m, node).is_some() {
        return Some((Level::State, false));
    }
    match node.kind() {
        // `typeof it`: a runner's global, unless the file binds the name.
        "unary_expression" => {
            let op = node.child_by_field_name("operator").map(|o| text(o, src));
            let arg = node.child_by_field_name("argument")?;
            let name = text(arg, src);
            return (op == Some("typeof")
                && arg.kind() == "identifier"
                && TEST_GLOBALS.contains(&name)
                && !m.binds(name))
            .then_some((Level::Probe, false));
        }
        "string"
        | "template_string"
        | "interpreted_string_literal"
        | "raw_string_literal"
        | "binary_operator"
        | "binary_expression"
        | "concatenated_string"
        | "call"
        | "call_expression"
        | "subscript"
        | "property_identifier"
        | "identifier"
        | "parenthesized_expression" => {}
        "attribute"
        | "member_expression"
        | "selector_expression"
        | "subscript_expression"
        | "index_expression"
        | "new_expression" => {}
        _ => return None,
    }
    // A constant naming something of a test run, beside where it tells one.
    if let Some(level) = constant_level(m, node) {
        return Some((level, false));
    }
    match m.eval(node)? {
        Val::Name(n) => named_level(m, node, &n).map(|l| (l, false)),
        Val::Sig(l) if matches!(node.kind(), "identifier" | "call" | "call_expression") => {
            Some((l, true))
        }
        _ => None,
    }
}

/// A constant string (or a member of the environment, `process.env.CI`) that names something of
/// a test run where it tells one (see [`Named`]).
pub(super) fn constant_level(m: &Meaning, node: Node) -> Option<Level> {
    let (value, env_member) = match node.kind() {
        "property_identifier" => {
            let parent = m.up(node)?;
            let obj = parent.child_by_field_name("object")?;
            match m.eval(obj)? {
                Val::Name(o) if through(&o, ENV_SOURCES) => (text(node, m.src).to_string(), true),
                _ => return None,
            }
        }
        _ => (m.fold(node)?, false),
    };
    let what = named_constant(&value)?;
    let stmt = around(m, node);
    let env = || env_member || beside(m, stmt, node, ENV_SOURCES, false);
    match what {
        Named::RunnerEnv => Some(Level::Probe),
        Named::EnvPrefix => env().then_some(Level::Probe),
        Named::CiEnv => env().then_some(Level::State),
        Named::WeakEnv => env().then_some(Level::Weak),
        Named::Runner => beside(m, stmt, node, SOURCES, true).then_some(Level::Probe),
        Named::Flag => beside(m, stmt, node, FLAG_SOURCES, false).then_some(Level::Probe),
        Named::Global => beside(m, stmt, node, GLOBALS, false).then_some(Level::Probe),
    }
}

/// Whether a module is only a test run's: a runner's, or one under a tests folder, a conftest,
/// a `test_`/`_test` module.
pub(super) fn test_module(name: &str) -> bool {
    let name = name.trim_start_matches('.');
    named_constant(name) == Some(Named::Runner)
        || name.split(['.', '/', '\\']).any(|seg| {
            matches!(
                seg,
                "tests" | "test" | "__tests__" | "conftest" | "spec" | "__mocks__"
            ) || seg.starts_with("test_")
                || seg.ends_with("_test")
        })
}

/// An import or `require` of a module only a test run has (see [`test_module`]), chosen by an
/// `if`, a `try`, a ternary or a short-circuit: the scope that chooses it.
pub(super) fn conditional_load<'a>(
    m: &Meaning<'a>,
    node: Node<'a>,
    test_only: &[String],
) -> Option<Node<'a>> {
    let module = match node.kind() {
        "import_statement" if m.language == Language::Python => named(node)
            .first()
            .map(|n| text(n.child_by_field_name("name").unwrap_or(*n), m.src).to_string()),
        "import_from_statement" => node
            .child_by_field_name("module_name")
            .map(|n| text(n, m.src).to_string()),
        "call" | "call_expression" => {
            let callee = node.child_by_field_name("function")?;
            let name = text(callee, m.src);
            if !matches!(
                name,
                "require" | "import" | "__import__" | "importlib.import_module"
            ) {
                return None;
            }
            let arg = node
                .child_by_field_name("arguments")
                .and_then(|a| named(a).first().copied())?;
            m.fold(arg)
        }
        _ => None,
    }?;
    if !test_module(&module) && !test_only.contains(&module) {
        return None;
    }
    let mut at = node;
    while let Some(p) = m.up(at) {
        match p.kind() {
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "ternary_expression"
            | "conditional_expression"
            | "catch_clause" => {
                return Some(p);
            }
            k if k.contains("function") || k.ends_with("definition") || k == "lambda" => {
                return None;
            }
            _ => at = p,
        }
    }
    None
}

/// A comparison of an environment value with `"test"` or `"testing"` in code: `test-aware`
/// where it is only read, `test-detected` where it (or a name bound to it) chooses what runs.
pub(super) fn aware(m: &Meaning, node: Node) -> Option<Detection> {
    let src = m.src;
    match node.kind() {
        "comparison_operator" => {}
        "binary_expression"
            if node
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o, src), "==" | "===" | "!=" | "!==")) => {}
        _ => return None,
    }
    let parts = named(node);
    let is_test = |n: &Node| {
        m.fold(*n)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "test" | "testing"))
    };
    let env = |n: &Node| {
        descendants(*n)
            .into_iter()
            .any(|d| matches!(m.eval(d), Some(Val::Name(x)) if through(&x, ENV_SOURCES)))
    };
    let hit = parts.iter().any(is_test) && parts.iter().any(|p| !is_test(p) && env(p));
    hit.then(|| {
        (
            FindingKind::TestAware,
            line(node),
            text(node, src).to_string(),
        )
    })
}
