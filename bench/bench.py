#!/usr/bin/env python3
"""Speed and memory bars of SPEC §9, as ratios against git itself, measured side by side.

Usage: python3 bench/bench.py [--goal PATH] [--iterations N] [--runs K] [--files N ...]

Builds (with git fast-import) repositories whose history holds a goal of N iteration commits
(default 10,000) with its whole Progress Log, the same with a Progress Log trimmed to 20 entries, a
realistic goal of 300 iterations, one of 10, and working trees of 50,000 and 100,000 files
(--files), then prints every bar of SPEC §9 side by side with git:

  log        goal log --json     vs git log --numstat   (N whole log, N trimmed, 300)   bar ≤ 1
  rss        peak RSS of goal log --json over N iterations                           bar < 64 MiB
  status     goal status         vs git status                                       bar ≤ 1.5
  growth     goal status @N      vs goal status @10     (whole log, trimmed log)      bar ≤ 1.1
  iterate    goal iterate        vs git add -A && git commit  (2,000 files, 50k, 100k) bar ≤ 2
  verifyNk   goal verify (a trivial passing command) vs git status, N files         bar ≤ 2.5
  statusNk   goal status (evidence on the tree) vs git status, N files               bar ≤ 1.5
  hook       the pre-commit hook on a commit touching no goal file                   bar < 20 ms
  run        goal run's own overhead per turn (all but the agent; bench/run_overhead.py) bar ≤ 50 ms
  fleet      goal fleet over 200 branches (beside git for-each-ref)                  bar ≤ 100 ms
  red-*      goal verify --red (the pin on the red tree, in the kept worktree) vs the same
             pin run in place (goal verify), on a crate with a few dependencies (serde,
             serde_json, memchr: cargo test) and on a pytest package; the first red run of a
             crate is shown apart (it makes the kept worktree and seeds its target/)  no bar: a cost
  red-ws     goal verify --red vs in place on a two-crate cargo workspace with one registry
             dependency (memchr), steady state: the test file edited before each run, the
             second and later red runs                                         bar ≤ 1.5
  done-*     goal done (its red run and its clean run of the final tree) vs the pin in place,
             on the pytest package and on the workspace; the clean run's own cost as done
             prints it                                                          no bar: a cost

  done-mut-* goal done with the mutation check on (`mutants: report`: every change reverted
             once, the mutants of the changed lines run by the tools) vs the pin in place, on a
             small crate (cargo-mutants), a pytest package (mutmut) and a JS package (StrykerJS);
             the tools come from the test cache (.ci/run installs them)          no bar: a cost

--only red|red-ws|done|mutants|verify|log300|growth runs just those rows (the red and done rows need
cargo and pytest; without a pytest on PATH the bench makes a venv with one, as the tests do).

Each figure is the median of K runs (default 5), alternating the two commands.
Timings on shared machines are noisy: read the ratios, not the milliseconds.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ENV = dict(
    os.environ,
    GIT_CONFIG_GLOBAL="/dev/null",
    GIT_CONFIG_NOSYSTEM="1",
    GIT_AUTHOR_NAME="bench",
    GIT_AUTHOR_EMAIL="bench@example.invalid",
    GIT_COMMITTER_NAME="bench",
    GIT_COMMITTER_EMAIL="bench@example.invalid",
    NO_COLOR="1",
    TZ="UTC",
)
# A red run fails by design: with RUST_BACKTRACE set (as on many developers' shells), each
# failing Rust test symbolises its backtrace (about 80 ms here), a cost of the test binary, not of
# goal, which the passing run in place never pays. Both sides run without it.
ENV.pop("RUST_BACKTRACE", None)


def ensure_pytest():
    """A `python3 -m pytest` for the red rows: the one on PATH, else a venv the bench makes once
    (`$GOAL_TEST_CACHE`, else ~/.cache/goal-tests, `pytest-<version>`, as the tests make it),
    put first on ENV's PATH. Says so at the start, never after minutes of other rows."""
    probe = subprocess.run(["python3", "-m", "pytest", "--version"], env=ENV, capture_output=True)
    if probe.returncode == 0:
        return
    version = "9.2.0"
    cache = os.environ.get("GOAL_TEST_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "goal-tests")
    venv = os.path.join(cache, f"pytest-{version}")
    bin_dir = os.path.join(venv, "bin")
    if not os.path.exists(os.path.join(bin_dir, "pytest")):
        print(f"no pytest on PATH: making a venv with pytest {version} in {venv}...", flush=True)
        made = subprocess.run([sys.executable, "-m", "venv", venv]).returncode == 0 and subprocess.run(
            [os.path.join(bin_dir, "pip"), "install", "--quiet", "--disable-pip-version-check", f"pytest=={version}"]
        ).returncode == 0
        if not made:
            shutil.rmtree(venv, ignore_errors=True)
            sys.exit("the red rows need pytest: none on PATH and none could be installed (pip install pytest, or --only log300|growth)")
    ENV["PATH"] = bin_dir + os.pathsep + ENV.get("PATH", "")


def ensure_cargo():
    if shutil.which("cargo", path=ENV.get("PATH")) is None:
        sys.exit("the red rows need cargo on PATH (or run --only log300|growth|verify)")


def run(cmd, cwd, check=True):
    return subprocess.run(cmd, cwd=cwd, env=ENV, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(cmd, cwd):
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, shell=isinstance(cmd, str))
    return time.perf_counter() - start


def goal_md(iterations, criteria=3):
    lines = [
        "---",
        'goal: "Benchmark goal"',
        'created: "2026-01-01T00:00:00Z"',
        'updated: "2026-01-01T00:00:00Z"',
        f"iteration: {iterations}",
        "status: in-progress",
        "---",
        "",
        "# Goal: Benchmark goal",
        "",
        "## Acceptance Criteria",
    ]
    lines += [f"- [ ] criterion {i} passes" for i in range(1, criteria + 1)]
    lines += ["", "## Progress Log"]
    return lines


def build_history(path, iterations, files=2000, keep=None):
    """A repo with `files` source files and a goal of `iterations` iteration commits. `keep`: the
    Progress Log keeps only its last `keep` entries (trimmed by hand, as some users do)."""
    os.makedirs(path)
    run(["git", "init", "-q", "-b", "main"], path)
    out = []
    mark = 0

    def blob(data):
        nonlocal mark
        mark += 1
        raw = data.encode()
        out.append(f"blob\nmark :{mark}\ndata {len(raw)}\n".encode() + raw + b"\n")
        return mark

    def commit(message, changes, when):
        nonlocal mark
        mark += 1
        raw = message.encode()
        head = f"commit refs/heads/main\nmark :{mark}\ncommitter bench <bench@example.invalid> {when} +0000\ndata {len(raw)}\n".encode() + raw + b"\n"
        body = "".join(f"M 100644 :{m} {p}\n" for p, m in changes).encode()
        out.append(head + body + b"\n")

    t0 = 1_780_000_000
    initial = [(f"src/mod{i // 100}/file{i}.rs", blob(f"// file {i}\n" + "fn f() {}\n" * 20)) for i in range(files)]
    commit("initial\n", initial, t0)
    log = goal_md(0)
    trailers = "Goal-Iteration: {n}\nGoal-Status: in-progress\nGoal-Passing: 0/3\nGoal-Action: {a}\n"
    commit('goal: init "Benchmark goal"\n\n' + trailers.format(n=0, a="init"), [(".agents/goal/GOAL.md", blob("\n".join(log) + "\n"))], t0 + 1)
    head = len(log)
    for n in range(1, iterations + 1):
        log += [f"### Iteration {n}", f"- worked on step {n}"]
        if keep is not None and len(log) > head + 2 * keep:
            del log[head : head + 2]
        text = "\n".join(log).replace("iteration: 0", f"iteration: {n}", 1) + "\n"
        code = blob(f"// step {n}\n" + "fn g() {}\n" * (n % 7 + 1))
        commit(
            f"goal: iteration {n}: worked on step {n}\n\n" + trailers.format(n=n, a="iterate"),
            [(".agents/goal/GOAL.md", blob(text)), (f"src/step{n % 50}.rs", code)],
            t0 + 1 + n,
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, env=ENV, input=b"".join(out), check=True)
    run(["git", "checkout", "-q", "-f", "main"], path)
    run(["git", "reset", "-q", "--hard"], path)


def median_pair(a, b, cwd, runs, setup=None):
    ta, tb = [], []
    for _ in range(runs):
        if setup:
            setup()
        ta.append(timed(a, cwd))
        if setup:
            setup()
        tb.append(timed(b, cwd))
    return statistics.median(ta), statistics.median(tb)


def peak_rss_mib(cmd, cwd):
    # A fresh Python process whose only child is `cmd`, so RUSAGE_CHILDREN is that child's peak.
    probe = "import resource,subprocess,sys;subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,check=True);print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    out = subprocess.run([sys.executable, "-c", probe, *cmd], cwd=cwd, env=ENV, check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def ratio_row(rows, key, what, g, s, bar, unit="ms"):
    digits = 0 if g >= 1 else 1
    rows.append((key, what, g / s, f"{g*1000:.{digits}f} / {s*1000:.{digits}f} {unit}", f"≤ {bar}", g / s <= bar))


CRATE_TOML = """[package]
name = "calc"
version = "0.1.0"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
memchr = "2"
"""

CRATE_BASE = """#[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
pub struct Pair { pub a: i64, pub b: i64 }

pub fn add(p: &Pair) -> i64 { p.a + p.b }

pub fn parse(text: &str) -> Pair { serde_json::from_str(text).unwrap() }

pub fn has_comma(text: &str) -> bool { memchr::memchr(b',', text.as_bytes()).is_some() }
"""

CRATE_WORK = CRATE_BASE + "\npub fn mul(p: &Pair) -> i64 { p.a * p.b }\n"

CRATE_TEST = """#[test]
fn mul_of_a_parsed_pair() {
    let p = calc::parse(r#"{"a": 2, "b": 3}"#);
    assert_eq!(calc::mul(&p), 6);
}
"""

CALC_BASE = "def add(a, b):\n    return a - b\n"
CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"


def write(path, name, text):
    full = os.path.join(path, name)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def build_red(path, goal, kind):
    """A goal at work, its test written and the fix made (uncommitted): `crate` (mul() added, its
    test in tests/mul.rs; the red tree fails to build) or `pytest` (add() fixed)."""
    os.makedirs(path)
    run(["git", "init", "-q", "-b", "main"], path)
    write(path, ".gitignore", "target/\n__pycache__/\n.pytest_cache/\n")
    if kind == "crate":
        write(path, "Cargo.toml", CRATE_TOML)
        write(path, "src/lib.rs", CRATE_BASE)
        run(["cargo", "generate-lockfile", "-q"], path)
        criterion = "mul of a parsed pair is 6 (verify: `cargo test -q --test mul`)"
    else:
        write(path, "calc.py", CALC_BASE)
        write(path, "tests/test_calc.py", CALC_TEST)
        criterion = "add(2, 2) returns 4 (verify: `python3 -m pytest -q tests/test_calc.py`)"
    run(["git", "add", "-A"], path)
    run(["git", "commit", "-q", "-m", "base"], path)
    run([goal, "init", "Red run bench", "-c", criterion], path)
    if kind == "crate":
        write(path, "src/lib.rs", CRATE_WORK)
        write(path, "tests/mul.rs", CRATE_TEST)
    else:
        write(path, "calc.py", CALC_BASE.replace("a - b", "a + b"))
    # Warm: the dependencies built (or the bytecode written) in place, as in a working session.
    run([goal, "verify", "-c", "1"], path)


WS_TOML = """[workspace]
members = ["crates/core", "crates/app"]
resolver = "2"
"""

WS_CORE_TOML = """[package]
name = "core-calc"
version = "0.1.0"
edition = "2021"

[dependencies]
memchr = "2"
"""

WS_APP_TOML = """[package]
name = "app"
version = "0.1.0"
edition = "2021"

[dependencies]
core-calc = { path = "../core" }
"""

WS_CORE = """pub fn add(a: i64, b: i64) -> i64 { a - b }

pub fn commas(text: &str) -> usize { memchr::memchr_iter(b',', text.as_bytes()).count() }
"""

WS_APP = """pub fn total(text: &str) -> i64 {
    text.split(',').map(|w| w.trim().parse::<i64>().unwrap_or(0)).fold(0, core_calc::add)
}
"""

WS_TEST = """#[test]
fn total_adds() {
    assert_eq!(app::total("1, 2, 3"), 6);
    assert_eq!(core_calc::commas("1, 2, 3"), 2);
}
"""


def build_workspace(path, goal):
    """A two-crate cargo workspace (app uses core-calc, which uses memchr) whose add() subtracts;
    a goal fixing it, its test written and the fix made (uncommitted), built once in place."""
    os.makedirs(path)
    run(["git", "init", "-q", "-b", "main"], path)
    write(path, ".gitignore", "target/\n")
    write(path, "Cargo.toml", WS_TOML)
    write(path, "crates/core/Cargo.toml", WS_CORE_TOML)
    write(path, "crates/core/src/lib.rs", WS_CORE)
    write(path, "crates/app/Cargo.toml", WS_APP_TOML)
    write(path, "crates/app/src/lib.rs", WS_APP)
    run(["cargo", "generate-lockfile", "-q", "--offline"], path)
    run(["git", "add", "-A"], path)
    run(["git", "commit", "-q", "-m", "base"], path)
    criterion = "total adds (verify: `cargo test -q --offline -p app --test total`)"
    run([goal, "init", "Workspace bench", "-c", criterion], path)
    write(path, "crates/app/tests/total.rs", WS_TEST)
    write(path, "crates/core/src/lib.rs", WS_CORE.replace("a - b", "a + b"))
    run([goal, "verify", "-c", "1"], path)


def edit_test(path, name):
    counter = [0]

    def edit():
        counter[0] += 1
        with open(os.path.join(path, name), "a") as f:
            f.write(f"// edit {counter[0]}\n")
    return edit


def red_ws_rows(rows, goal, root, runs):
    ensure_cargo()
    path = os.path.join(root, "ws")
    build_workspace(path, goal)
    place = [goal, "verify", "-c", "1"]
    red = [goal, "verify", "-c", "1", "--red"]
    first = timed(red, path)
    rows.append(("red-ws1", "first goal verify --red, two-crate workspace", first * 1000, "ms", "—", True))
    r, p = median_pair(red, place, path, runs, setup=edit_test(path, "crates/app/tests/total.rs"))
    rows.append(("red-ws", "goal verify --red / in place, workspace, steady", r / p, f"{r*1000:.0f} / {p*1000:.0f} ms", "≤ 1.5", r / p <= 1.5))


def done_once(goal, path):
    """Time `goal done` in `path` (the goal proven in place); the clean run's seconds as done
    prints them."""
    start = time.perf_counter()
    out = subprocess.run([goal, "done"], cwd=path, env=ENV, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"goal done failed in {path}:\n{out.stderr}")
    clean = 0.0
    for line in out.stderr.splitlines():
        if "the clean run passed in " in line:
            clean += float(line.split("the clean run passed in ")[1].split("s")[0])
    return took, clean


def done_rows(rows, goal, root, runs):
    for kind, what in (("pytest", "pytest package"), ("ws", "two-crate workspace")):
        if kind == "ws":
            ensure_cargo()
        dones, cleans, places = [], [], []
        for i in range(max(1, runs // 2) if kind == "ws" else runs):
            path = os.path.join(root, f"done-{kind}-{i}")
            if kind == "ws":
                build_workspace(path, goal)
            else:
                build_red(path, goal, "pytest")
            places.append(timed([goal, "verify", "-c", "1"], path))
            run([goal, "iterate", "-m", "fixed"], path)
            took, clean = done_once(goal, path)
            dones.append(took)
            cleans.append(clean)
        d, c, p = statistics.median(dones), statistics.median(cleans), statistics.median(places)
        rows.append((f"done-{kind}", f"goal done / the pin in place, {what}", d / p, f"{d*1000:.0f} / {p*1000:.0f} ms", "—", True))
        rows.append((f"clean-{kind}", f"of which the clean run of the final tree, {what}", c / p, f"{c*1000:.0f} / {p*1000:.0f} ms", "—", True))


MUT_TOOLS = ("cargo-mutants-27.1.0/bin", "mutmut-3.8.1/venv/bin", "stryker-9.6.1/node_modules/.bin")

MUT_PROJECTS = {
    "crate": (
        {
            "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n',
            ".gitignore": "target/\n",
            "src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
        },
        {"src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n        assert_eq!(super::add(2, 3), 5);\n    }\n}\n"},
        "add adds (verify: `cargo test -q`)",
    ),
    "pytest": (
        {
            "calc/__init__.py": "def add(a, b):\n    return a - b\n",
            ".gitignore": "__pycache__/\n.pytest_cache/\n",
            "pyproject.toml": "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
        },
        {
            "calc/__init__.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(2, 3) == 5\n",
        },
        "add adds (verify: `pytest -q -p no:cacheprovider tests/test_calc.py`)",
    ),
    "js": (
        {
            "package.json": '{"name":"calc","version":"1.0.0"}\n',
            "src/calc.js": "function add(a, b) {\n  return a - b;\n}\nmodule.exports = { add };\n",
        },
        {
            "src/calc.js": "function add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n",
            "test/calc.test.js": "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/calc.js');\ntest('add', () => { assert.strictEqual(add(2, 2), 4); assert.strictEqual(add(2, 3), 5); });\n",
        },
        "add adds (verify: `node --test test/`)",
    ),
}


def mutants_rows(rows, goal, root, runs):
    """goal done with `mutants: report` on a small crate, a pytest package and a JS package, beside
    the pin in place."""
    cache = os.environ.get("GOAL_TEST_CACHE") or os.path.expanduser("~/.cache/goal-tests")
    dirs = [os.path.join(cache, d) for d in MUT_TOOLS]
    env = dict(ENV, PATH=os.pathsep.join(dirs + [ENV.get("PATH", "")]))
    for kind, (base, work, criterion) in MUT_PROJECTS.items():
        if kind == "crate":
            ensure_cargo()
        dones, places, mutants = [], [], []
        for i in range(max(1, runs // 5)):
            path = os.path.join(root, f"mut-{kind}-{i}")
            os.makedirs(path)
            sh = lambda cmd: subprocess.run(cmd, cwd=path, env=env, check=True, capture_output=True, text=True)
            sh(["git", "init", "-q", "-b", "main"])
            for name, text in base.items():
                write(path, name, text)
            sh(["git", "add", "-A"])
            sh(["git", "commit", "-q", "-m", "base"])
            sh(["git", "config", "goal.mutants", "report"])
            sh([goal, "init", "Mutation bench", "-c", criterion])
            for name, text in work.items():
                write(path, name, text)
            sh([goal, "verify", "-c", "1"])
            start = time.perf_counter()
            sh([goal, "verify", "-c", "1"])
            places.append(time.perf_counter() - start)
            sh([goal, "iterate", "-m", "fixed"])
            start = time.perf_counter()
            out = subprocess.run([goal, "done", "--json"], cwd=path, env=env, capture_output=True, text=True)
            dones.append(time.perf_counter() - start)
            if out.returncode != 0:
                sys.exit(f"goal done failed in {path}:\n{out.stderr}")
            import json
            m = json.loads(out.stdout).get("mutation") or {}
            mutants.append(m.get("killed", 0) + m.get("survived", 0) + m.get("timeout", 0) + m.get("unviable", 0))
        d, p = statistics.median(dones), statistics.median(places)
        rows.append((f"done-mut-{kind}", f"goal done with mutants / the pin in place, {kind} ({mutants[0]} mutants)", d / p, f"{d*1000:.0f} / {p*1000:.0f} ms", "—", True))


def red_rows(rows, goal, root, runs):
    ensure_cargo()
    for kind, what in (("crate", "a crate with 3 deps, cargo test"), ("pytest", "a pytest package")):
        path = os.path.join(root, f"red-{kind}")
        build_red(path, goal, kind)
        place = [goal, "verify", "-c", "1"]
        red = [goal, "verify", "-c", "1", "--red"]
        if kind == "crate":
            first = timed(red, path)
            rows.append(("red-1st", f"first goal verify --red, {what}", first * 1000, "ms", "—", True))
        r, p = median_pair(red, place, path, runs)
        rows.append((f"red-{kind}", f"goal verify --red / in place, {what}", r / p, f"{r*1000:.0f} / {p*1000:.0f} ms", "—", True))


def build_fleet(path, branches=200, files=200):
    """A repo whose `branches` branches each hold a goal at its own iteration (one goal commit
    on top of a shared base), for `goal fleet`."""
    os.makedirs(path)
    run(["git", "init", "-q", "-b", "main"], path)
    out = []
    raw = b"# base\n"
    out.append(b"blob\nmark :1\ndata %d\n%s\n" % (len(raw), raw))
    base = "".join(f"M 100644 :1 src/file{i}.rs\n" for i in range(files))
    out.append(f"commit refs/heads/main\nmark :2\ncommitter bench <bench@example.invalid> 1780000000 +0000\ndata 5\nbase\n{base}\n".encode())
    trailers = "Goal-Iteration: {n}\nGoal-Status: in-progress\nGoal-Passing: 0/3\nGoal-Action: iterate\nGoal-Verdict: progress\n"
    for b in range(branches):
        n = b % 40 + 1
        log = goal_md(0)
        for k in range(1, n + 1):
            log += [f"### Iteration {k}", f"- worked on step {k}"]
        text = ("\n".join(log).replace("iteration: 0", f"iteration: {n}", 1) + "\n").encode()
        message = (f"goal: iteration {n}: worked on step {n}\n\n" + trailers.format(n=n)).encode()
        out.append(b"blob\nmark :%d\ndata %d\n%s\n" % (3 + b, len(text), text))
        out.append(
            f"commit refs/heads/agent-{b}\ncommitter bench <bench@example.invalid> {1780000001 + b} +0000\ndata {len(message)}\n".encode()
            + message
            + f"\nfrom :2\nM 100644 :{3 + b} .agents/goal/GOAL.md\n\n".encode()
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, env=ENV, input=b"".join(out), check=True)
    run(["git", "checkout", "-q", "-f", "main"], path)


def build_files(path, files):
    """A working tree of `files` files with a small goal, its index refreshed as a user's is (a
    fresh checkout leaves every entry racily clean, which git fixes on its next `git status`)."""
    build_history(path, 10, files=files)
    run(["git", "status"], path)
    run(["git", "config", "goal.escalateAfter", "1000000"], path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--goal", default=shutil.which("goal") or "target/release/goal")
    parser.add_argument("--iterations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--files", type=int, nargs="*", default=[50_000, 100_000], help="working-tree sizes for verify/iterate/status")
    parser.add_argument("--only", choices=["red", "red-ws", "done", "mutants", "verify", "log300", "growth"], help="run only these rows")
    args = parser.parse_args()
    goal = os.path.abspath(args.goal)
    if not os.path.exists(goal):
        sys.exit(f"no goal binary at {goal}: run `cargo build --release` or pass --goal")
    root = tempfile.mkdtemp(prefix="goal-bench-")
    # The kept worktrees of red runs go under the bench's folder, not the user's cache.
    ENV["XDG_CACHE_HOME"] = os.path.join(root, "cache")
    if args.only in (None, "red", "done", "mutants"):
        ensure_pytest()
    if args.only:
        started = time.perf_counter()
        rows = []
        if args.only == "red":
            red_rows(rows, goal, root, args.runs)
            red_ws_rows(rows, goal, root, args.runs)
        elif args.only == "red-ws":
            red_ws_rows(rows, goal, root, args.runs)
        elif args.only == "done":
            done_rows(rows, goal, root, args.runs)
        elif args.only == "mutants":
            mutants_rows(rows, goal, root, args.runs)
        elif args.only == "verify":
            verify_rows(rows, goal, root, args.runs, args.files)
        elif args.only == "growth":
            n = args.iterations
            big, small = os.path.join(root, "big"), os.path.join(root, "small")
            trimmed = os.path.join(root, "trimmed")
            build_history(big, n)
            build_history(trimmed, n, keep=20)
            build_history(small, 10)
            for path in (big, small, trimmed):
                run([goal, "status"], path, check=False)
            b, s2 = median_pair(f"cd {big} && {goal} status", f"cd {small} && {goal} status", root, args.runs * 6)
            ratio_row(rows, "growth", f"goal status @{n} / @10 iterations", b, s2, 1.1)
            b, s2 = median_pair(f"cd {trimmed} && {goal} status", f"cd {small} && {goal} status", root, args.runs * 6)
            ratio_row(rows, "growth-t", f"same, @{n} with the log trimmed / @10", b, s2, 1.1)
        else:
            real = os.path.join(root, "real")
            build_history(real, 300)
            g, s = median_pair([goal, "log", "--json"], ["git", "log", "--numstat"], real, args.runs * 2)
            ratio_row(rows, "log-300", "goal log --json / git log --numstat, 300 iterations", g, s, 1)
        return report(rows, root, started)
    n = args.iterations
    big, small = os.path.join(root, "big"), os.path.join(root, "small")
    real, trimmed = os.path.join(root, "real"), os.path.join(root, "trimmed")
    started = time.perf_counter()
    print(f"building histories in {root}: {n} iterations (whole Progress Log), {n} (log trimmed to 20 entries), 300, 10...", flush=True)
    build_history(big, n)
    build_history(trimmed, n, keep=20)
    build_history(real, 300)
    build_history(small, 10)
    trees = {}
    for files in args.files:
        print(f"building a working tree of {files:,} files...", flush=True)
        trees[files] = os.path.join(root, f"files{files}")
        build_files(trees[files], files)

    rows = []
    rss = peak_rss_mib([goal, "log", "--json"], big)
    rows.append(("rss", f"peak RSS of goal log --json @{n}", rss, "MiB", "< 64", rss < 64))

    # git log --numstat diffs the whole 400 KB GOAL.md at every commit: fewer runs there.
    g, s = median_pair([goal, "log", "--json"], ["git", "log", "--numstat"], big, max(1, args.runs // 2))
    ratio_row(rows, "log", f"goal log --json / git log --numstat @{n}", g, s, 1)
    g, s = median_pair([goal, "log", "--json"], ["git", "log", "--numstat"], trimmed, args.runs)
    ratio_row(rows, "log-trim", f"same, @{n}, Progress Log trimmed to 20", g, s, 1)
    g, s = median_pair([goal, "log", "--json"], ["git", "log", "--numstat"], real, args.runs * 2)
    ratio_row(rows, "log-300", "same, 300 iterations, whole Progress Log", g, s, 1)

    for path in (big, small, trimmed):
        run([goal, "status"], path, check=False)
    g, s = median_pair([goal, "status"], ["git", "status"], small, args.runs * 2)
    ratio_row(rows, "status", "goal status / git status", g, s, 1.5)

    # Growth: alternate the two repositories, many runs (a few ms each, on a noisy machine).
    b, s2 = median_pair(f"cd {big} && {goal} status", f"cd {small} && {goal} status", root, args.runs * 6)
    ratio_row(rows, "growth", f"goal status @{n} / @10 iterations", b, s2, 1.1)
    b, s2 = median_pair(f"cd {trimmed} && {goal} status", f"cd {small} && {goal} status", root, args.runs * 6)
    ratio_row(rows, "growth-t", f"same, @{n} with the log trimmed / @10", b, s2, 1.1)

    # The synthetic iterations make no progress: keep escalation out of the timing.
    run(["git", "config", "goal.escalateAfter", "1000000"], small)
    counter = [0]

    def toucher(path):
        def touch():
            counter[0] += 1
            with open(os.path.join(path, "src", f"bench{counter[0] % 10}.rs"), "a") as f:
                f.write(f"// {counter[0]}\n")
        return touch

    iterate = [goal, "iterate", "-m", "bench step"]
    commit = "git add -A && git commit -q -m 'bench step'"
    g, s = median_pair(iterate, commit, small, args.runs, setup=toucher(small))
    ratio_row(rows, "iterate", "goal iterate / git add -A && git commit", g, s, 2)

    verify_rows(rows, goal, root, args.runs, None, trees, iterate, commit, toucher)

    # The pre-commit hook on a commit that does not touch .agents/goal/: absolute time.
    with open(os.path.join(small, "src", "hook_probe.rs"), "w") as f:
        f.write("// staged, not a goal file\n")
    run(["git", "add", "src/hook_probe.rs"], small)
    hook = statistics.median(timed([goal, "hooks", "run", "pre-commit"], small) for _ in range(args.runs * 4))
    rows.append(("hook", "goal hooks run pre-commit (no goal file staged)", hook * 1000, "ms", "< 20", hook * 1000 < 20))

    # `goal run`: everything but the agent, per turn, in a 10-iteration repository.
    import run_overhead
    turn = statistics.median(run_overhead.once(goal, 20) for _ in range(max(3, args.runs // 2))) * 1000
    rows.append(("run", "goal run's own overhead per turn (20 turns)", turn, "ms", "≤ 50", turn <= 50))

    # `goal fleet` reads refs and each tip: 200 branches, beside `git for-each-ref` reading them.
    fleet_repo = os.path.join(root, "fleet")
    build_fleet(fleet_repo)
    g, s = median_pair([goal, "fleet", "--json"], ["git", "for-each-ref"], fleet_repo, args.runs * 2)
    rows.append(("fleet", f"goal fleet, 200 branches (git for-each-ref {s*1000:.1f} ms)", g * 1000, "ms", "≤ 100", g * 1000 <= 100))

    red_rows(rows, goal, root, args.runs)
    red_ws_rows(rows, goal, root, args.runs)
    done_rows(rows, goal, root, args.runs)
    mutants_rows(rows, goal, root, args.runs)
    return report(rows, root, started)


def verify_rows(rows, goal, root, runs, files, trees=None, iterate=None, commit=None, toucher=None):
    """verifyNk, statusNk (and iterNk, in the whole run) over working trees of N files."""
    if trees is None:
        trees = {}
        for n in files:
            print(f"building a working tree of {n:,} files...", flush=True)
            trees[n] = os.path.join(root, f"files{n}")
            build_files(trees[n], n)
    verify = [goal, "verify", "-c", "1", "--check", "--", "test", "-e", "."]
    for n, path in trees.items():
        # Evidence on the tree: goal status then reads the working tree's tree as well.
        run(verify, path)
        g, s = median_pair(verify, ["git", "status"], path, runs)
        ratio_row(rows, f"verify{n // 1000}k", f"goal verify (true) / git status, {n:,} files", g, s, 2.5)
        g, s = median_pair([goal, "status"], ["git", "status"], path, runs)
        ratio_row(rows, f"status{n // 1000}k", f"goal status / git status, {n:,} files", g, s, 1.5)
        if iterate:
            g, s = median_pair(iterate, commit, path, runs, setup=toucher(path))
            ratio_row(rows, f"iter{n // 1000}k", f"goal iterate / git add -A && git commit, {n:,}", g, s, 2)


def report(rows, root, started):
    print(f"\n{'bar':<9} {'what':<50} {'ratio':>7}  {'times':<22} {'target':<7} ok")
    for key, what, ratio, times, target, ok in rows:
        value = f"{ratio:.2f}" if key not in ("rss", "hook", "run", "fleet", "red-1st", "red-ws1") else f"{ratio:.1f}"
        print(f"{key:<9} {what:<50} {value:>7}  {times:<22} {target:<7} {'yes' if ok else 'NO'}")
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
    shutil.rmtree(root, ignore_errors=True)
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
