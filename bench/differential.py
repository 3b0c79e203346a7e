#!/usr/bin/env python3
"""A differential run: every command and flag the README shows, run with two `goal` binaries.

Usage: python3 bench/differential.py [--before REV] [--before-bin PATH] [--after-bin PATH]

The "before" binary is built from REV (default 9aa749d, the tree before the maintainer's
refactor: small functions, layers, error kinds) in a worktree under target/differential/, and
kept there; the "after" binary is this checkout's `target/debug/goal` (built first). Each binary
runs the same script of steps in a scratch repository of its own, with the same hermetic git
environment and a fixed clock for git. Outputs are compared after the parts that cannot be equal
are masked: the scratch folder's path, commit and evidence ids, timestamps and durations.

Prints one line per step (`same` or `DIFFERENT`) and, for each difference, a unified diff of
the masked exit code, stdout and stderr. Exits 0 when every step is the same, 1 otherwise.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ENV = dict(
    os.environ,
    GIT_CONFIG_GLOBAL="/dev/null",
    GIT_CONFIG_NOSYSTEM="1",
    GIT_AUTHOR_NAME="diff",
    GIT_AUTHOR_EMAIL="diff@example.invalid",
    GIT_COMMITTER_NAME="diff",
    GIT_COMMITTER_EMAIL="diff@example.invalid",
    GIT_AUTHOR_DATE="2026-12-01T00:00:00Z",
    GIT_COMMITTER_DATE="2026-12-01T00:00:00Z",
    NO_COLOR="1",
    TZ="UTC",
    GOAL_TIME_SCALE="0",
)
for key in ("RUST_BACKTRACE", "GOAL_FILE", "CLAUDE_PROJECT_DIR"):
    ENV.pop(key, None)

# What differs between two runs of the same binary: masked before comparing.
MASKS = [
    (re.compile(r"/tmp/[A-Za-z0-9_.\-/]*?(?=[/\s'\"`:)]|$)"), "<TMP>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?"), "<TIME>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( [+-]\d{4}| UTC)?"), "<TIME>"),
    (re.compile(r"\b[0-9a-f]{7,64}\b"), "<ID>"),
    (re.compile(r"\b\d+(\.\d+)?\s?(ms|s|µs|m)\b"), "<DUR>"),
    (re.compile(r"\b\d+m\d+s\b|\b\d+h\d+m\b"), "<DUR>"),
    (re.compile(r'"(duration_ms|elapsed_ms|started_ms)":\s*\d+'), r'"\1": <N>'),
]

# The scratch project: a shell test runner that prints a summary goal reads, a linter, and the
# code the goal adds.
FILES = {
    "lint.sh": 'grep -l "	" *.sh tests/*.sh 2>/dev/null && { echo "lint: tabs"; exit 1; }\n'
    'echo "lint: clean"\n',
    "tests/test_greet.sh": 'if [ "$(sh greet.sh 2>/dev/null)" = hello ]; then echo "1 passed, 0 failed";'
    ' else echo "0 passed, 1 failed"; exit 1; fi\n',
}
GREET = {"greet.sh": "echo hello\n"}

PIN = "sh tests/test_greet.sh"

# (files written before the step, argv after `goal`); None as argv runs `git log` as the referee.
STEPS = [
    ({}, ["--version"]),
    ({}, ["status"]),
    ({}, ["--json", "status"]),
    ({}, ["init", "Ship a greeting script", "-c", f"`sh greet.sh` prints hello (verify: `{PIN}`)"]),
    ({}, ["criteria", "add", "lint is clean", "--guard", "sh lint.sh"]),
    ({}, ["criteria", "lint"]),
    ({}, ["status"]),
    ({}, ["verify", "-c", "1"]),
    (GREET, ["verify", "-c", "1"]),
    ({}, ["iterate", "-m", "implemented the greeting", "-m", "verified: 1 passed"]),
    ({}, ["verify", "-c", "2"]),
    ({"notes.txt": "lint fixed\n"}, ["iterate", "-m", "fixed lint findings"]),
    ({}, ["status"]),
    ({}, ["--json", "status"]),
    ({}, ["verify"]),
    ({}, ["verify", "-c", "1", "--", "echo", "test result: ok. 5 passed; 0 failed"]),
    ({}, ["verify", "-c", "1", "--", "sh", "lint.sh"]),
    ({}, ["criteria", "pin", "1", "--", "sh", "lint.sh"]),
    ({}, ["--json", "criteria", "pin", "1", "--", "sh", "lint.sh"]),
    ({}, ["check", "9"]),
    ({}, ["--json", "check", "9"]),
    ({}, ["inject"]),
    ({}, ["continuation"]),
    ({}, ["detect", "my goal is to ship the greeting"]),
    ({}, ["config"]),
    ({}, ["fleet"]),
    ({}, ["report"]),
    ({}, ["log"]),
    ({}, ["--json", "log"]),
    ({}, ["hooks", "install"]),
    ({}, ["integrate", "claude"]),
    ({}, ["integrate", "pi"]),
    ({}, ["ci", "init", "--race"]),
    ({}, ["run", "--agent", "nosuchagent"]),
    ({}, ["run", "--race", "2", "--agent", "nosuchagent"]),
    ({}, ["--json", "run", "--agent", "nosuchagent"]),
    ({}, ["frobnicate"]),
    ({}, ["verify", "--bogus-flag"]),
    ({}, ["done"]),
    ({}, ["log"]),
    ({}, ["audit"]),
    ({}, ["--json", "audit"]),
    ({}, ["status"]),
    ({}, None),
]

# Commands whose whole output is compared without a repository.
STATIC = [
    ["--help"],
    ["completions", "bash"],
    ["man"],
]


def mask(text, scratch):
    text = text.replace(scratch, "<REPO>")
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def run(binary, argv, cwd, scratch):
    if argv is None:
        cmd = ["git", "log", "--format=%s%n%b%n--"]
    else:
        cmd = [binary, *argv]
    p = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, timeout=600, stdin=subprocess.DEVNULL)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    return f"exit {p.returncode}\n--- stdout\n{mask(out, scratch)}\n--- stderr\n{mask(err, scratch)}"


def subcommands(binary):
    """Every subcommand path the binary's help lists, nested ones included."""
    found = []

    def walk(prefix):
        p = subprocess.run([binary, *prefix, "--help"], env=ENV, capture_output=True, text=True)
        lines = p.stdout.splitlines()
        if "Commands:" not in lines:
            return
        for line in lines[lines.index("Commands:") + 1 :]:
            if not line.startswith("  "):
                break
            m = re.match(r"^  (\S+)\s", line)
            if m and m.group(1) != "help":
                found.append([*prefix, m.group(1)])
                walk([*prefix, m.group(1)])

    walk([])
    return found


def script(binary, helps):
    scratch = tempfile.mkdtemp(prefix="goal-differential-")
    results = []
    try:
        for argv in STATIC + [[*h, "--help"] for h in helps]:
            results.append((" ".join(argv), run(binary, argv, scratch, scratch)))
        results.append(("demo", run(binary, ["demo", "--dir", os.path.join(scratch, "demo")], scratch, scratch)))
        repo = os.path.join(scratch, "repo")
        os.makedirs(repo)
        subprocess.run(["git", "init", "-q", "-b", "main", repo], env=ENV, check=True)
        for path, text in FILES.items():
            write(repo, path, text)
        subprocess.run(["git", "add", "-A"], cwd=repo, env=ENV, check=True)
        subprocess.run(["git", "commit", "-qm", "the project"], cwd=repo, env=ENV, check=True)
        for files, argv in STEPS:
            for path, text in files.items():
                write(repo, path, text)
            name = "git log" if argv is None else " ".join(argv)
            results.append((name, run(binary, argv, repo, scratch)))
        goal_md = os.path.join(repo, ".agents", "goal", "GOAL.md")
        if os.path.exists(goal_md):
            with open(goal_md, encoding="utf-8") as f:
                results.append(("GOAL.md", mask(f.read(), scratch)))
        outside = os.path.join(scratch, "not-a-repo")
        os.makedirs(outside)
        results.append(("status (not a repo)", run(binary, ["status"], outside, scratch)))
        results.append(("--json status (not a repo)", run(binary, ["--json", "status"], outside, scratch)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results


def write(repo, path, text):
    full = os.path.join(repo, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def build_before(rev):
    """The binary of `rev`, built once in target/differential/<rev>/ (its own worktree)."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short=12", f"{rev}^{{commit}}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    place = os.path.join(ROOT, "target", "differential", commit)
    binary = os.path.join(place, "target", "debug", "goal")
    if not os.path.exists(binary):
        if not os.path.exists(os.path.join(place, "Cargo.toml")):
            subprocess.run(["git", "worktree", "add", "-q", "--detach", place, commit], cwd=ROOT, check=True)
        subprocess.run(["cargo", "build", "--locked", "-q"], cwd=place, check=True)
    return binary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="9aa749d")
    parser.add_argument("--before-bin")
    parser.add_argument("--after-bin")
    args = parser.parse_args()
    before = args.before_bin or build_before(args.before)
    if args.after_bin:
        after = args.after_bin
    else:
        subprocess.run(["cargo", "build", "--locked", "-q"], cwd=ROOT, check=True)
        after = os.path.join(ROOT, "target", "debug", "goal")
    helps = subcommands(after)
    old, new = script(before, helps), script(after, helps)
    different = 0
    for (name, a), (_, b) in zip(old, new):
        if a == b:
            print(f"same       goal {name}")
            continue
        different += 1
        print(f"DIFFERENT  goal {name}")
        diff = difflib.unified_diff(a.splitlines(), b.splitlines(), "before", "after", lineterm="", n=1)
        for line in diff:
            print(f"    {line}")
    print(f"\n{len(old) - different} of {len(old)} steps the same, {different} different")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
