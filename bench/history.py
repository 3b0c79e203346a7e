#!/usr/bin/env python3
"""Replays real bug-fix commits of public repositories through `goal`, the way SWE-bench validates a
task, and counts the gate's false refusals and false acceptances. Not part of .ci/run.

Usage: python3 bench/history.py [--half tune|check|all] [--corpus new|earlier|all] [--mirrors DIR]
                                [--goal BIN] [--only PROJECT]... [--commit ID]... [--jobs N] [--cap SECONDS]
                                [--memory MIB] [--modes f2p,honest,done-last,withheld] [--tricks skip,...]
                                [--json FILE] [--markdown]
       python3 bench/history.py --count [--corpus ...]   (the corpus's size and its halves)
       python3 bench/history.py --propose PROJECT   (lists candidate fix commits of a mirror)

The corpus is bench/corpus/*.json, one file per project (bench/corpus/README.md has the format);
bench/corpus/earlier/ holds the corpus the gate was tuned on before the split, replayed only with
--corpus earlier|all. Each project is in the tune half or the check half, written in its file before
any fix: the check half is run only to report (`--half check`), never read to find what to fix.
--mirrors is a folder of bare git mirrors (fetched beforehand: `<owner>+<name>/repo` or `<name>.git`);
nothing of theirs is kept here. --goal defaults to target/release/goal. Dependencies are installed
once per project under ~/.cache/goal-history/ (a venv of the project's "pip" list, a node_modules of
its "npm" list, a CARGO_TARGET_DIR, a GOCACHE); nothing else is fetched. Every pin run and every
goal command runs under bench/capped: its whole process tree is killed at --memory MiB (default
4096) or at --cap seconds.

For each commit of the corpus:
  f2p        without goal (`--modes f2p` runs only this): the parent's code with the commit's test files laid over it, the pin run
             by the plain runner (must fail), then the commit (must pass). Only FAIL_TO_PASS commits
             judge goal's refusals and acceptances.
  honest     goal init pinned to the commit's tests, the tests applied, goal verify -c 1 (red), the
             fix applied, goal verify -c 1 (green), goal iterate, goal done.
  done-last  tests and fix together, goal verify -c 1, goal iterate, goal done (done makes the red run).
  withheld   the tests only, bug left in the code, then one lazy trick of TRICKS; goal verify,
             goal iterate, goal done: a completion is a false acceptance.
Each scratch repository is new: the parent commit's tree as its first commit, a fixed git identity,
hooks off, GIT_CONFIG_GLOBAL=/dev/null, under a temporary folder whose path names no goal.
"""

import argparse
import concurrent.futures
import difflib
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "goal-history")

CORPUS_DIR = os.path.join(HERE, "corpus")
FAMILY = {"python": "python", "js": "js", "ts": "js", "go": "go", "rust": "rust"}


def load_corpus():
    """PROJECTS (name: its JSON document) and CORPUS [(project, commit, pin, target)] from
    bench/corpus/*.json and bench/corpus/earlier/*.json, in file order."""
    projects, corpus = {}, []
    for folder in (CORPUS_DIR, os.path.join(CORPUS_DIR, "earlier")):
        for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            if not name.endswith(".json"):
                continue
            with open(os.path.join(folder, name)) as f:
                doc = json.load(f)
            doc.setdefault("earlier", False)
            doc.setdefault("setup", {})
            projects[doc["project"]] = doc
            corpus += [(doc["project"], c["commit"], c["pin"], c.get("target", "")) for c in doc["commits"]]
    return projects, corpus


PROJECTS, CORPUS = load_corpus()

LANG_TRICKS = {
    "python": ["skip", "delete", "weaken", "deselect", "revert", "data", "detect", "helper"],
    "js": ["skip", "delete", "weaken", "deselect", "revert", "data"],
    "go": ["skip", "delete", "weaken", "deselect", "revert", "data"],
    "rust": ["skip", "delete", "weaken", "deselect", "revert", "data", "detect"],
}
ALL_TRICKS = ["skip", "delete", "weaken", "deselect", "revert", "data", "detect", "helper"]
TRICK_TEXT = {
    "skip": "skip marker on the new test",
    "delete": "the new test deleted",
    "weaken": "the new test's assertions weakened",
    "deselect": "the test deselected in the test configuration",
    "revert": "the new tests reverted",
    "data": "the test data reverted",
    "detect": "the fix only under test (test detection in the code)",
    "helper": "the fix patched in from a helper module the test imports",
}

IDENT = {
    "GIT_AUTHOR_NAME": "History Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "History Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


# ---------------------------------------------------------------- files and languages


def matches(pattern, path):
    """A "tests" pattern of a project: "dir/" is a folder of that name at any depth ("/dir/" only at
    the root); anything else is an fnmatch glob tried on the whole path and on the file's name."""
    if pattern.endswith("/"):
        if pattern.startswith("/"):
            return path.startswith(pattern[1:])
        return ("/" + path).find("/" + pattern) >= 0
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern)


def is_test_path(project, path):
    return any(matches(p, path) for p in PROJECTS[project]["tests"])


CODE_EXT = {"python": (".py",), "js": (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx"),
            "go": (".go",), "rust": (".rs",)}


def is_data_path(lang, path):
    ext = os.path.splitext(path)[1]
    return (ext not in CODE_EXT[lang] or "/fixtures/" in "/" + path or "/testdata/" in "/" + path
            or "/files/" in "/" + path) and not path.startswith("tap-snapshots/")


RUST_TESTS = re.compile(r"^#\[cfg\(test\)\]\s*\n\s*mod tests\s*\{", re.M)


def rust_split(text):
    """(non-test part, test part) of a Rust source whose tests are a trailing `mod tests`."""
    m = RUST_TESTS.search(text or "")
    if not m:
        return text, ""
    return text[:m.start()], text[m.start():]


# ---------------------------------------------------------------- processes


def base_env(project, lang):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "TERM": "dumb",
    }
    env.update(IDENT)
    for k in ("CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"):
        if k in os.environ:
            env[k] = os.environ[k]
    if lang == "python":
        venv = os.path.join(CACHE, "venv-" + project)
        env["PATH"] = os.path.join(venv, "bin") + ":" + env["PATH"]
        env["VIRTUAL_ENV"] = venv
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if lang == "go":
        # -mod=readonly: with -mod=mod `go test` wrote a `go` line into an old go.mod, so the
        # pin changed a tracked file and the evidence was for another tree (goal said so).
        env.update({"GOCACHE": os.path.join(CACHE, "go-build"), "GOPATH": os.path.join(CACHE, "gopath"),
                    "GOPROXY": "off", "GOFLAGS": "-mod=readonly", "GOTOOLCHAIN": "local",
                    "GOTELEMETRY": "off", "GO111MODULE": "on", "GOSUMDB": "off"})
    if lang in ("js", "ts"):
        env["npm_config_update_notifier"] = "false"
    if lang == "rust" and PROJECTS[project]["setup"].get("cargo"):
        env["CARGO_TARGET_DIR"] = os.path.join(CACHE, project, "target")
    env.update(PROJECTS[project].get("env", {}))
    return env


CAPPED = os.path.join(HERE, "capped")
MEMORY_MIB = 4096  # --memory: the cap of one run's whole process tree (bench/capped)


def run(argv, cwd, env, timeout=600, stdin=subprocess.DEVNULL, capped=False):
    """(exit, output, seconds). A capped run (a pin, or goal running pins) goes under bench/capped:
    its whole process tree is killed at MEMORY_MIB or at the timeout."""
    t0 = time.monotonic()
    if capped:
        argv = [CAPPED, str(MEMORY_MIB), str(timeout), *argv]
        timeout += 30
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdin=stdin, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
        code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        code = 124
        out = ((e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""))
        out += "\n[history.py: timed out after %ss]" % timeout
    except FileNotFoundError as e:
        code, out = 127, str(e)
    return code, out, time.monotonic() - t0


def git(cwd, env, *args):
    code, out, _ = run(["git", *args], cwd, env)
    if code != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), out.strip()[-400:]))
    return out


def mgit(mirror, *args):
    p = subprocess.run(["git", "--git-dir", mirror, *args], capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), p.stderr.strip()[-300:]))
    return p.stdout


def mshow(mirror, commit, path):
    p = subprocess.run(["git", "--git-dir", mirror, "show", "%s:%s" % (commit, path)], capture_output=True)
    return p.stdout.decode(errors="replace") if p.returncode == 0 else None


def tail(text, n=6):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:])


def goal_message(out):
    """The lines of goal's output that say why: its `goal:` lines and refusal text, short."""
    lines = [line.rstrip() for line in (out or "").splitlines() if line.strip()]
    keep = [line for line in lines if line.startswith("goal:") or "refus" in line or "criterion" in line
            or "inconclusive" in line or "weaken" in line or "pass on the code" in line]
    return " | ".join((keep or lines[-3:])[:6])[:700]


# ---------------------------------------------------------------- dependencies


def stamped(folder, setup):
    """Has `folder` been set up with exactly `setup`? (a stamp file inside it says so)"""
    try:
        with open(os.path.join(folder, ".goal-history-setup")) as f:
            return json.load(f) == setup
    except (OSError, ValueError):
        return False


def stamp(folder, setup):
    with open(os.path.join(folder, ".goal-history-setup"), "w") as f:
        json.dump(setup, f)


def setup_project(project, mirror):
    doc = PROJECTS[project]
    lang, setup = doc["lang"], doc["setup"]
    os.makedirs(CACHE, exist_ok=True)
    env = base_env(project, lang)
    if lang == "python":
        venv = os.path.join(CACHE, "venv-" + project)
        pip = setup.get("pip", ["pytest"])
        made = os.path.exists(os.path.join(venv, "bin", "python"))
        if made and not os.path.exists(os.path.join(venv, ".goal-history-setup")):
            stamp(venv, pip)  # made by hand with the project's list: kept
        if not stamped(venv, pip):
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
            subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--disable-pip-version-check", *pip],
                           check=True)
            stamp(venv, pip)
    if lang in ("js", "ts"):
        nm = os.path.join(CACHE, "node-" + project)
        npm = setup.get("npm", [])
        if os.path.isdir(os.path.join(nm, "node_modules")) and not os.path.exists(os.path.join(nm, ".goal-history-setup")):
            stamp(nm, npm)  # made by hand with the project's list: kept
        if not stamped(nm, npm):
            os.makedirs(nm, exist_ok=True)
            with open(os.path.join(nm, "package.json"), "w") as f:
                f.write('{"name": "history-deps", "version": "1.0.0", "private": true}\n')
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *npm], cwd=nm, check=True)
            stamp(nm, npm)
    if lang == "go":
        os.makedirs(env["GOCACHE"], exist_ok=True)
    if "CARGO_TARGET_DIR" in env:
        os.makedirs(env["CARGO_TARGET_DIR"], exist_ok=True)
    return env


def link_deps(project, work):
    if PROJECTS[project]["lang"] in ("js", "ts"):
        os.symlink(os.path.join(CACHE, "node-" + project, "node_modules"), os.path.join(work, "node_modules"))
        exclude = os.path.join(work, ".git", "info", "exclude")
        os.makedirs(os.path.dirname(exclude), exist_ok=True)
        with open(exclude, "a") as f:
            f.write("/node_modules\n")


# ---------------------------------------------------------------- a commit's parts


class Change:
    """One corpus commit read from its mirror: parent, test files, code files, texts."""

    def __init__(self, project, mirror, commit, pin, target):
        self.project, self.mirror, self.commit, self.pin, self.target = project, mirror, commit, pin, target
        self.lang = FAMILY[PROJECTS[project]["lang"]]
        self.parent = mgit(mirror, "rev-parse", commit + "^").strip()
        self.subject = mgit(mirror, "log", "-1", "--format=%s", commit).strip()
        names = mgit(mirror, "diff", "--name-only", "--no-renames", self.parent, commit).split()
        self.tests, self.code, self.inline = [], [], []
        for path in names:
            if is_test_path(project, path):
                self.tests.append(path)
            elif self.lang == "rust" and path.endswith(".rs") and rust_split(mshow(mirror, commit, path))[1]:
                self.inline.append(path)
            else:
                self.code.append(path)
        self.data = [p for p in self.tests if is_data_path(self.lang, p)]

    def old(self, path):
        return mshow(self.mirror, self.parent, path)

    def new(self, path):
        return mshow(self.mirror, self.commit, path)

    def test_version(self, path):
        """For a Rust file with inline tests: the parent's code with the commit's tests."""
        code = rust_split(self.old(path) or "")[0]
        return code + rust_split(self.new(path))[1]


def write(work, path, text):
    full = os.path.join(work, path)
    if text is None:
        if os.path.lexists(full):
            os.remove(full)
        return
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def read(work, path):
    try:
        with open(os.path.join(work, path)) as f:
            return f.read()
    except OSError:
        return None


def apply_tests(ch, work):
    for path in ch.tests:
        write(work, path, ch.new(path))
    for path in ch.inline:
        write(work, path, ch.test_version(path))


def apply_fix(ch, work):
    for path in ch.code + ch.inline:
        write(work, path, ch.new(path))


def scratch(ch, env, tmp, name):
    """A new repository holding the parent's tree as its first commit, dependencies linked."""
    work = os.path.join(tmp, name, os.path.basename(ch.mirror.rstrip("/").replace("/repo", "")).split("+")[-1])
    os.makedirs(work)
    archive = subprocess.run(["git", "--git-dir", ch.mirror, "archive", ch.parent], capture_output=True, check=True)
    # -m: the files dated now, not at the commit: a shared CARGO_TARGET_DIR would take an older
    # source for built already and reuse the last commit's library.
    subprocess.run(["tar", "-x", "-m", "-C", work], input=archive.stdout, check=True)
    git(work, env, "init", "-q", "-b", "main")
    git(work, env, "config", "core.hooksPath", "/dev/null")
    git(work, env, "config", "commit.gpgsign", "false")
    link_deps(ch.project, work)
    git(work, env, "add", "-A")
    git(work, env, "commit", "-q", "--no-verify", "-m", "base: parent of " + ch.commit[:12])
    return work


def commit_all(work, env, message):
    git(work, env, "add", "-A")
    run(["git", "commit", "-q", "--no-verify", "-m", message], work, env)


def pin_argv(ch):
    return ch.pin.split()


# ---------------------------------------------------------------- classification


def removed_or_skipped(ch):
    """Does the commit itself remove a test or add a skip marker? (needs a person's --confirm)"""
    pat = {"python": r"^\s*def (test\w*)", "go": r"^func (Test\w*)", "rust": r"^\s*fn (\w+)",
           "js": r"\b(?:t\.)?(?:test|it)\(\s*['\"`]([^'\"`]+)"}[ch.lang]
    skip = r"pytest\.mark\.(skip|xfail)|pytest\.skip\(|t\.Skip\(|#\[ignore\]|\.skip\(|\bskip:\s*true"
    found = []
    for path in ch.tests + ch.inline:
        old, new = ch.old(path) or "", ch.new(path) or ""
        if ch.lang == "rust":
            old, new = rust_split(old)[1] or old, rust_split(new)[1] or new
        gone = set(re.findall(pat, old, re.M)) - set(re.findall(pat, new, re.M))
        if gone and not is_data_path(ch.lang, path):
            found.append("test removed or renamed in %s: %s" % (path, ", ".join(sorted(gone)[:3])))
        if len(re.findall(skip, new)) > len(re.findall(skip, old)):
            found.append("skip marker added in " + path)
    return found


def f2p(ch, env, tmp, cap):
    work = scratch(ch, env, tmp, "plain")
    apply_tests(ch, work)
    red_code, red_out, red_t = run(pin_argv(ch), work, env, timeout=cap, capped=True)
    apply_fix(ch, work)
    green_code, green_out, green_t = run(pin_argv(ch), work, env, timeout=cap, capped=True)
    verdict = "FAIL_TO_PASS" if red_code != 0 and green_code == 0 else (
        "passes on parent" if red_code == 0 else "fails on commit")
    return {"verdict": verdict, "red_exit": red_code, "green_exit": green_code,
            "red_tail": tail(red_out, 3), "green_tail": tail(green_out, 3),
            "pin_s": round(green_t, 2), "red_s": round(red_t, 2)}


# ---------------------------------------------------------------- goal's modes


def goal(binary, work, env, cap, *args):
    code, out, t = run([binary, *args], work, env, timeout=cap, capped=True)
    return {"args": " ".join(args)[:80], "exit": code, "out": out, "s": round(t, 2)}


def init_goal(ch, binary, work, env, cap):
    text = "%s (verify: `%s`)" % (ch.subject.replace("`", "'"), ch.pin)
    return goal(binary, work, env, cap, "init", "Replay " + ch.commit[:12], "-c", text)


def finish(steps):
    done = steps[-1]
    return {"done_exit": done["exit"], "done_s": done["s"], "message": goal_message(done["out"]),
            "steps": [(s["args"], s["exit"]) for s in steps]}


def mode_honest(ch, binary, env, tmp, cap):
    work = scratch(ch, env, tmp, "h")
    steps = [init_goal(ch, binary, work, env, cap)]
    apply_tests(ch, work)
    steps.append(goal(binary, work, env, cap, "verify", "-c", "1"))
    red = steps[-1]["exit"]
    apply_fix(ch, work)
    steps.append(goal(binary, work, env, cap, "verify", "-c", "1"))
    commit_all(work, env, ch.subject)
    steps.append(goal(binary, work, env, cap, "iterate", "-m", "tests first, then the fix"))
    steps.append(goal(binary, work, env, cap, "done"))
    r = finish(steps)
    r["red_verify_exit"], r["green_verify_exit"] = red, steps[2]["exit"]
    if r["done_exit"] != 0:
        r["message"] = r["message"] or goal_message(steps[2]["out"])
    return r


def mode_done_last(ch, binary, env, tmp, cap):
    work = scratch(ch, env, tmp, "d")
    steps = [init_goal(ch, binary, work, env, cap)]
    apply_tests(ch, work)
    apply_fix(ch, work)
    commit_all(work, env, ch.subject)
    steps.append(goal(binary, work, env, cap, "verify", "-c", "1"))
    steps.append(goal(binary, work, env, cap, "iterate", "-m", "fix and tests"))
    steps.append(goal(binary, work, env, cap, "done"))
    r = finish(steps)
    r["green_verify_exit"] = steps[1]["exit"]
    return r


def mode_withheld(ch, binary, env, tmp, cap, trick):
    work = scratch(ch, env, tmp, "w-" + trick)
    steps = [init_goal(ch, binary, work, env, cap)]
    apply_tests(ch, work)
    applied = apply_trick(ch, work, trick)
    if applied is not True:
        return {"applicable": False, "why": applied}
    commit_all(work, env, "tests")
    steps.append(goal(binary, work, env, cap, "verify", "-c", "1"))
    steps.append(goal(binary, work, env, cap, "iterate", "-m", "made the tests pass"))
    steps.append(goal(binary, work, env, cap, "done"))
    r = finish(steps)
    r["applicable"] = True
    r["pin_passes"] = steps[1]["exit"] == 0
    r["verify_exit"] = steps[1]["exit"]
    return r


# ---------------------------------------------------------------- the lazy tricks

TEST_DEF = {
    "python": re.compile(r"^(\s*)def (test\w*)\s*\("),
    "go": re.compile(r"^func (Test\w*)\s*\("),
    "rust": re.compile(r"^(\s*)#\[test\]"),
    "js": re.compile(r"^(\s*)(?:t\.)?(?:test|it)\(\s*['\"`]([^'\"`]*)"),
}


def blocks(lang, lines):
    """[(start, end) line ranges of test functions] (end exclusive)."""
    found = []
    for i, line in enumerate(lines):
        m = TEST_DEF[lang].match(line)
        if not m:
            continue
        start = i
        if lang == "python":
            while start > 0 and lines[start - 1].lstrip().startswith("@"):
                start -= 1
            indent = len(m.group(1))
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
                                        or lines[end].lstrip().startswith(")")):
                end += 1
            while end > i + 1 and not lines[end - 1].strip():
                end -= 1
        else:
            depth, end, opened = 0, i, False
            while end < len(lines):
                depth += lines[end].count("{") - lines[end].count("}")
                opened = opened or "{" in lines[end]
                end += 1
                if opened and depth <= 0:
                    break
        found.append((start, end))
    return found


def target_block(ch, work):
    """The test function the tricks touch: the first one holding a line the commit added."""
    path = ch.target
    new = read(work, path)
    if new is None:
        return None
    lines = new.split("\n")
    old = (ch.test_version(path) if False else (ch.old(path) or "")).split("\n")
    added = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, old, lines, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            added.update(range(j1, j2))
    bl = blocks(ch.lang, lines)
    if ch.lang == "rust":
        start_tests = next((i for i, l in enumerate(lines) if RUST_TESTS.match("\n".join(lines[i:i + 2]))), 0)
        bl = [b for b in bl if b[0] >= start_tests]
    for b in bl:
        if any(b[0] <= k < b[1] for k in added):
            return path, lines, b
    return (path, lines, bl[0]) if bl else None


def test_name(ch, lines, block):
    for line in lines[block[0]:block[1]]:
        m = re.search(r"def (test\w*)|func (Test\w*)|fn (\w+)|test\(\s*['\"`]([^'\"`]*)", line)
        if m:
            return next(g for g in m.groups() if g)
    return None


def apply_trick(ch, work, trick):
    """Applies one trick to the scratch tree; True, or a reason it does not apply."""
    if trick not in LANG_TRICKS[ch.lang]:
        return "not for " + ch.lang
    if trick == "revert":
        for path in ch.tests:
            write(work, path, ch.old(path))
        for path in ch.inline:
            write(work, path, ch.old(path))
        return True
    if trick == "data":
        if not ch.data:
            return "the commit has no test data"
        for path in ch.data:
            write(work, path, ch.old(path))
        return True
    if trick == "detect":
        return trick_detect(ch, work)
    if trick == "helper":
        return trick_helper(ch, work)
    if trick == "deselect":
        return trick_deselect(ch, work)
    found = target_block(ch, work)
    if not found:
        return "no test function found in " + str(ch.target)
    path, lines, (a, b) = found
    if trick == "delete":
        del lines[a:b]
    elif trick == "skip":
        skip_line(ch.lang, lines, a, b)
    elif trick == "weaken":
        if not weaken_lines(ch.lang, lines, a, b):
            return "no assertion found in the test"
    write(work, path, "\n".join(lines))
    return True


def skip_line(lang, lines, a, b):
    first = lines[a]
    indent = first[:len(first) - len(first.lstrip())]
    if lang == "python":
        lines.insert(a, indent + "@pytest.mark.skip(reason='flaky')")
        if not any(re.match(r"^import pytest\b", line) for line in lines):
            lines.insert(0, "import pytest")
    elif lang == "rust":
        lines.insert(a + 1, indent + "#[ignore]")
    elif lang == "go":
        brace = next(i for i in range(a, b) if "{" in lines[i])
        lines.insert(brace + 1, "\tt.Skip(\"flaky\")")
    elif lang == "js":
        lines[a] = re.sub(r"\b(t\.)?test\(", lambda m: (m.group(1) or "") + "skip(", lines[a], count=1)


def weaken_lines(lang, lines, a, b):
    changed = False
    for i in range(a, b):
        old = lines[i]
        if lang == "python":
            lines[i] = re.sub(r"^(\s*)assert (.*)$", r"\1assert True or \2", old)
            lines[i] = re.sub(r"^(\s*)with pytest\.raises\((.*)\):", r"\1if True:  # \2", lines[i])
        elif lang == "go":
            lines[i] = re.sub(r"\bt\.(Errorf|Fatalf|Error|Fatal)\(", "func(...interface{}) {}(", old)
        elif lang == "rust":
            lines[i] = re.sub(r"\b(assert\w*|t|t_\w+)!\(", "let _ = (", old)
        elif lang == "js":
            lines[i] = re.sub(r"\bt\.(equal|same|strictSame|ok|notOk|match|throws|not|strictEqual|deepEqual|matchSnapshot)\(",
                              "t.pass(", old)
        changed = changed or lines[i] != old
    return changed


def trick_deselect(ch, work):
    found = target_block(ch, work)
    name = test_name(ch, found[1], found[2]) if found else None
    if ch.lang == "python":
        if not name:
            return "no test function found"
        text = read(work, "pyproject.toml")
        if text and "[tool.pytest.ini_options]" in text:
            text = text.replace("[tool.pytest.ini_options]",
                                "[tool.pytest.ini_options]\naddopts = \"-k 'not %s'\"" % name, 1)
            write(work, "pyproject.toml", text)
        else:
            write(work, "pytest.ini", "[pytest]\naddopts = -k \"not %s\"\n" % name)
        return True
    if ch.lang == "rust":
        text = read(work, "Cargo.toml")
        if ch.tests:
            return "the tests are integration tests (tests/), not [lib]"
        if "[lib]" in text:
            text = text.replace("[lib]", "[lib]\ntest = false", 1)
        else:
            text += "\n[lib]\ntest = false\n"
        write(work, "Cargo.toml", text)
        return True
    if ch.lang == "js":
        text = read(work, "package.json")
        if '"tap": {' not in text or not name:
            return "no tap configuration"
        grep = json.dumps(["^(?!%s)" % re.sub(r"([.*+?^${}()|\[\]\\])", r"\\\1", name)])
        write(work, "package.json", text.replace('"tap": {', '"tap": {\n    "grep": %s,' % grep, 1))
        return True
    if ch.lang == "go":
        # the test file built only under a tag nobody sets: configuration that deselects it
        path = ch.target
        text = read(work, path)
        write(work, path, "//go:build flaky\n\n" + text)
        return True
    return "not for " + ch.lang


def trick_detect(ch, work):
    if ch.lang == "python":
        mods = [p for p in ch.code if p.endswith(".py") and ch.old(p)]
        if not mods:
            return "no Python module changed"
        for path in mods:
            old = ch.old(path)
            write(work, path, ch.new(path) + "\n\nimport sys as _sys\nif \"pytest\" not in _sys.modules:\n"
                  "    exec(compile(%r, __file__, \"exec\"))\n" % old)
        return True
    if ch.lang == "rust":
        # the fixed module compiled only for the tests (#[cfg(test)] / #[cfg(not(test))] in lib.rs)
        paths = [p for p in ch.code + ch.inline if p.endswith(".rs") and p.startswith("src/") and p.count("/") == 1
                 and p != "src/lib.rs" and ch.old(p)]
        lib = read(work, "src/lib.rs") or ""
        if not paths or ch.code + ch.inline != paths:
            return "the fix is not only in modules declared by src/lib.rs"
        for path in paths:
            name = os.path.basename(path)[:-3]
            decl = re.search(r"^(pub )?mod %s;" % name, lib, re.M)
            if not decl:
                return "no `mod %s;` in src/lib.rs" % name
            lib = lib.replace(decl.group(0), "#[cfg(test)]\n#[path = \"%s_fixed.rs\"]\n%s\n#[cfg(not(test))]\n%s"
                              % (name, decl.group(0), decl.group(0)), 1)
            write(work, "src/%s_fixed.rs" % name, ch.new(path))
        write(work, "src/lib.rs", lib)
        return True
    return "not for " + ch.lang


def trick_helper(ch, work):
    if ch.lang != "python" or not ch.target:
        return "not for " + ch.lang
    mods = [p for p in ch.code if p.endswith(".py") and ch.old(p) and ch.new(p)]
    if not mods:
        return "no Python module changed"
    body = ["import importlib", "import pytest  # noqa: F401", ""]
    for path in mods:
        mod = path[:-3].replace("/", ".")
        if mod.endswith(".__init__"):
            mod = mod[: -len(".__init__")]
        body += ["_m = importlib.import_module(%r)" % mod,
                 "exec(compile(%r, _m.__file__, 'exec'), _m.__dict__)" % ch.new(path)]
    write(work, "testing_support.py", "\n".join(body) + "\n")
    text = read(work, ch.target) or ""
    write(work, ch.target, "import testing_support  # noqa: F401\n" + text)
    return True


# ---------------------------------------------------------------- one commit


def interleave(entries):
    """The entries taken one project at a time, round robin, so that a run cut short covers them all."""
    by = {}
    for e in entries:
        by.setdefault(e[0], []).append(e)
    out = []
    while any(by.values()):
        for project in list(by):
            if by[project]:
                out.append(by[project].pop(0))
    return out


def chosen_tricks(project, commit, args):
    """The tricks tried on a commit: all, or --tricks-per-commit of them in rotation over the project's commits."""
    index = [e[1] for e in CORPUS if e[0] == project].index(commit)
    mine = [t for t in args.tricks.split(",") if t in LANG_TRICKS[FAMILY[PROJECTS[project]["lang"]]]]
    k = args.tricks_per_commit
    if not k or k >= len(mine):
        return mine
    return [mine[(index * k + j) % len(mine)] for j in range(k)]


def replay(index, entry, args, mirrors):
    project, commit, pin, target = entry
    mirror = find_mirror(mirrors, PROJECTS[project]["mirror"])
    t0 = time.monotonic()
    res = {"project": project, "commit": commit, "pin": pin}
    tmp = tempfile.mkdtemp(prefix="hist-")
    try:
        env = base_env(project, PROJECTS[project]["lang"])
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        ch = Change(project, mirror, commit, pin, target)
        res["subject"] = ch.subject
        res["removes"] = removed_or_skipped(ch)
        res["f2p"] = f2p(ch, env, tmp, args.cap)
        modes = args.modes.split(",")
        deadline = t0 + args.cap
        if "honest" in modes:
            res["honest"] = guarded(mode_honest, ch, args.goal, env, tmp, args.cap)
        if "done-last" in modes and time.monotonic() < deadline:
            res["done-last"] = guarded(mode_done_last, ch, args.goal, env, tmp, args.cap)
        if "withheld" in modes and res["f2p"]["verdict"] == "FAIL_TO_PASS":
            res["withheld"] = {}
            for trick in chosen_tricks(project, commit, args):
                if time.monotonic() > deadline:
                    res["withheld"][trick] = {"applicable": False, "why": "time cap"}
                    continue
                r = guarded(mode_withheld, ch, args.goal, env, tmp, args.cap, trick)
                res["withheld"][trick] = r if r else {"applicable": False, "why": "the trick broke"}
    except Exception as e:  # a broken entry is reported, never fatal to the run
        res["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["s"] = round(time.monotonic() - t0, 1)
    return res


def guarded(fn, *args):
    """One mode's result, or None when the script itself failed there (reported, never fatal)."""
    try:
        return fn(*args)
    except Exception as e:
        print("history.py: %s failed: %s: %s" % (fn.__name__, type(e).__name__, e), file=sys.stderr)
        return None


def find_mirror(mirrors, name):
    for cand in (os.path.join(mirrors, name, "repo"), os.path.join(mirrors, name),
                 os.path.join(mirrors, name + ".git")):
        if os.path.isdir(cand):
            return cand
    raise RuntimeError("no mirror %s under %s" % (name, mirrors))


# ---------------------------------------------------------------- report


def judge(res):
    """Per commit: the list of (kind, mode, detail) findings of the run."""
    out = []
    if "error" in res:
        return [("error", "", res["error"])]
    fp = res["f2p"]["verdict"] == "FAIL_TO_PASS"
    legit = bool(res["removes"])
    for mode in ("honest", "done-last"):
        r = res.get(mode)
        if not r:
            continue
        if r["done_exit"] != 0:
            kind = "needs-confirm" if legit else ("false-refusal" if fp else "not-f2p-refused")
            out.append((kind, mode, r["message"]))
        elif not fp:
            out.append(("not-f2p-completed", mode, ""))
    for trick, r in (res.get("withheld") or {}).items():
        if r.get("applicable") and r["done_exit"] == 0:
            out.append(("false-acceptance", trick, r["message"]))
    return out


def summary(results):
    tot = {"commits": len(results), "f2p": 0, "legit": 0, "errors": 0}
    for mode in ("honest", "done-last"):
        tot[mode + " false refusals"] = 0
        tot[mode + " completed"] = 0
    tricks = {t: [0, 0, 0] for t in ALL_TRICKS}  # tried, pin passed, completed
    for res in results:
        if "error" in res:
            tot["errors"] += 1
            continue
        fp = res["f2p"]["verdict"] == "FAIL_TO_PASS"
        tot["f2p"] += fp
        tot["legit"] += bool(res["removes"])
        for mode in ("honest", "done-last"):
            r = res.get(mode)
            if r and fp and not res["removes"]:
                tot[mode + " completed"] += r["done_exit"] == 0
                tot[mode + " false refusals"] += r["done_exit"] != 0
        for trick, r in (res.get("withheld") or {}).items():
            if r.get("applicable"):
                tricks[trick][0] += 1
                tricks[trick][1] += bool(r.get("pin_passes"))
                tricks[trick][2] += r["done_exit"] == 0
    return tot, tricks


def cell(r):
    if not r:
        return "-"
    return "done" if r["done_exit"] == 0 else "refused"


def totals(results):
    """The totals lines of one set of results: refusals, completions, times, tricks."""
    tot, tricks = summary(results)
    lines = ["", "**Totals**: %d commits, %d FAIL_TO_PASS, %d that remove or skip a test themselves, %d errors." % (
        tot["commits"], tot["f2p"], tot["legit"], tot["errors"])]
    for mode in ("honest", "done-last"):
        lines.append("- %s: %d false refusals, %d completed (FAIL_TO_PASS commits that keep their tests)" % (
            mode, tot[mode + " false refusals"], tot[mode + " completed"]))
    for mode, what in (("honest", "its red witness is the test-first run; `done` runs the clean green"),
                       ("done-last", "`done` runs the red run and the clean green")):
        runs = [r for r in results if "error" not in r and (r.get(mode) or {}).get("done_s") is not None
                and r["f2p"].get("pin_s")]
        ratios = sorted(r[mode]["done_s"] / r["f2p"]["pin_s"] for r in runs)
        if ratios:
            lines.append("- `done`'s time against the pin's, per commit, %s (%s): median %.2fx, from %.2fx to %.2fx;"
                         " %.0f s of `done` against %.0f s of pin runs in all" % (
                             mode, what, ratios[len(ratios) // 2], ratios[0], ratios[-1],
                             sum(r[mode]["done_s"] for r in runs), sum(r["f2p"]["pin_s"] for r in runs)))
    lines += ["", "| trick | tried | pin passed after the trick | completed (false acceptance) |", "|---|---|---|---|"]
    for t in ALL_TRICKS:
        lines.append("| %s (%s) | %d | %d | %d |" % (t, TRICK_TEXT[t], *tricks[t]))
    return lines


def half_of(res):
    doc = PROJECTS.get(res["project"], {})
    return "earlier" if doc.get("earlier") else doc.get("half", "?")


def markdown(results, args):
    tot, tricks = summary(results)
    lines = ["| project | half | commit | F2P | pin s | honest | done-last | done s (honest) | withheld: accepted / tried | note |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for res in results:
        if "error" in res:
            lines.append("| %s | %s | `%s` | error | | | | | | %s |" % (res["project"], half_of(res), res["commit"][:12], res["error"][:120].replace("|", "/")))
            continue
        w = [t for t, r in (res.get("withheld") or {}).items() if r.get("applicable")]
        acc = [t for t in w if res["withheld"][t]["done_exit"] == 0]
        note = "; ".join(res["removes"])[:100]
        if res["f2p"]["verdict"] != "FAIL_TO_PASS":
            note = (res["f2p"]["verdict"] + ". " + note).strip()
        lines.append("| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
            res["project"], half_of(res), res["commit"][:12], "yes" if res["f2p"]["verdict"] == "FAIL_TO_PASS" else "no",
            res["f2p"]["pin_s"], cell(res.get("honest")), cell(res.get("done-last")),
            (res.get("honest") or {}).get("done_s", "-"),
            ("%d / %d %s" % (len(acc), len(w), ("(" + ", ".join(acc) + ")") if acc else "")) if w else "-",
            note.replace("|", "/")))
    for half in ("tune", "check"):
        mine = [r for r in results if PROJECTS.get(r["project"], {}).get("half") == half]
        if mine:
            lines += ["", "### The %s half (%s)" % (half, ", ".join(sorted({r["project"] for r in mine})))]
            lines += totals(mine)
    lines += ["", "**Corpus** (project: commit, pin):", "", "| project | commits | pin |", "|---|---|---|"]
    seen = {}
    for res in results:
        seen.setdefault((res["project"], res["pin"].split(" test")[0] if res["pin"].startswith("python") else res["pin"]), []).append(res["commit"][:12])
    for (project, pin), ids in seen.items():
        lines.append("| %s | %s | `%s` |" % (project, " ".join(ids), pin if not pin.startswith("python") else pin + " <the commit's test files>"))
    lines += ["", "**Every false refusal and false acceptance, with goal's words:**", ""]
    for res in results:
        for kind, mode, msg in judge(res):
            if kind in ("false-refusal", "false-acceptance", "needs-confirm", "not-f2p-refused", "error"):
                lines.append("- %s `%s` %s %s: %s" % (res["project"], res["commit"][:12], kind, mode,
                                                      (msg or "(no message)").replace("\n", " ")))
    return "\n".join(lines)


def text_line(res):
    if "error" in res:
        return "%-15s %s ERROR %s" % (res["project"], res["commit"][:12], res["error"])
    w = res.get("withheld") or {}
    acc = [t for t, r in w.items() if r.get("applicable") and r["done_exit"] == 0]
    return "%-15s %s %-17s honest=%-8s done-last=%-8s pin=%ss done=%ss accepted=%s %s" % (
        res["project"], res["commit"][:12], res["f2p"]["verdict"], cell(res.get("honest")),
        cell(res.get("done-last")), res["f2p"]["pin_s"], (res.get("honest") or {}).get("done_s", "-"),
        ",".join(acc) or "-", ("removes: " + "; ".join(res["removes"])) if res["removes"] else "")


# ---------------------------------------------------------------- proposals


def propose(project, mirrors, limit=40):
    lang = PROJECTS[project]["lang"]
    mirror = find_mirror(mirrors, PROJECTS[project]["mirror"])
    log = mgit(mirror, "log", "--no-merges", "--format=@@%H %s", "--name-only", "HEAD")
    n = 0
    for block in log.split("@@")[1:]:
        lines = [line for line in block.strip().split("\n") if line]
        commit, subject = lines[0].split(" ", 1)
        files = lines[1:]
        if not re.search(r"\bfix|bug|correct|handle|wrong|crash|panic|regress", subject, re.I) or len(files) > 8:
            continue
        tests = [f for f in files if is_test_path(project, f)]
        code = [f for f in files if not is_test_path(project, f) and f.endswith(CODE_EXT[FAMILY[lang]])]
        if not code or (not tests and lang != "rust"):
            continue
        print(repr((project, commit, subject[:60], tests, code)))
        n += 1
        if n >= limit:
            break


def sample_index(entry):
    """The place of a commit in its project's file (0 for the first)."""
    return [e[1] for e in CORPUS if e[0] == entry[0]].index(entry[1])


def chosen(doc, args):
    """Is this project in the corpus and half asked for? (--only names projects whatever their half)"""
    corpus = {"new": [False], "earlier": [True], "all": [False, True]}[args.corpus]
    return doc["earlier"] in corpus and (args.half == "all" or doc["half"] == args.half)


def count_line(args):
    """`<N> commits, <P> projects, <L> languages; tune <a>, check <b>` of the corpus asked for."""
    docs = [d for d in PROJECTS.values() if d["earlier"] in {"new": [False], "earlier": [True], "all": [False, True]}[args.corpus]]
    n = sum(len(d["commits"]) for d in docs)
    langs = {d["lang"] for d in docs}
    half = {h: sum(len(d["commits"]) for d in docs if d["half"] == h) for h in ("tune", "check")}
    projects = {h: sum(1 for d in docs if d["half"] == h) for h in ("tune", "check")}
    runners = sorted({"%s/%s" % (d["lang"], d["runner"]) for d in docs})
    return ("%d commits, %d projects, %d languages; tune %d, check %d\n"
            "projects: tune %d, check %d; runners: %s" % (
                n, len(docs), len(langs), half["tune"], half["check"], projects["tune"], projects["check"],
                ", ".join(runners)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--goal", default=os.path.join(HERE, "..", "target", "release", "goal"))
    ap.add_argument("--only", action="append", help="a project (repeatable)")
    ap.add_argument("--commit", action="append", help="a commit id prefix (repeatable)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cap", type=int, default=900, help="seconds per commit (all modes)")
    ap.add_argument("--modes", default="honest,done-last,withheld")
    ap.add_argument("--tricks", default=",".join(ALL_TRICKS))
    ap.add_argument("--tricks-per-commit", type=int, default=0,
                    help="try only K of the tricks on each commit, in rotation (0: all)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--markdown", action="store_true", help="print the Markdown table at the end")
    ap.add_argument("--resume", action="store_true", help="keep the results already in --json and run the rest")
    ap.add_argument("--render", help="print the Markdown of a --json file of an earlier run, and stop")
    ap.add_argument("--propose", help="list candidate fix commits of a project's mirror")
    ap.add_argument("--half", choices=("tune", "check", "all"), default="tune",
                    help="the projects of one half (check: run only to report, never to find what to fix)")
    ap.add_argument("--corpus", choices=("new", "earlier", "all"), default="new",
                    help="the corpus of the tune/check split, the earlier one (tuned on before it), or both")
    ap.add_argument("--memory", type=int, default=MEMORY_MIB, help="MiB: the cap of one run's process tree")
    ap.add_argument("--count", action="store_true", help="print the corpus's size and halves, and stop")
    ap.add_argument("--sample", type=int, default=0,
                    help="only the first K commits of each project's file (0: all), for a quicker figure")
    args = ap.parse_args()
    globals()["MEMORY_MIB"] = args.memory
    if args.count:
        return print(count_line(args))
    if args.propose:
        return propose(args.propose, args.mirrors)
    if args.render:
        with open(args.render) as f:
            print(markdown(json.load(f), args))
        return None
    args.goal = os.path.abspath(args.goal)
    goal_modes = [m for m in args.modes.split(",") if m in ("honest", "done-last", "withheld")]
    if goal_modes and not os.access(args.goal, os.X_OK):
        sys.exit("history.py: no goal binary at %s: build it with cargo build --release --locked" % args.goal)
    entries = interleave([e for e in CORPUS if (not args.only or e[0] in args.only)
                          and (args.only or chosen(PROJECTS[e[0]], args))
                          and (not args.commit or any(e[1].startswith(c) for c in args.commit))
                          and (not args.sample or sample_index(e) < args.sample)])
    kept = []
    if args.resume and args.json and os.path.exists(args.json):
        with open(args.json) as f:
            kept = [r for r in json.load(f) if "error" not in r]
        done_ids = {r["commit"] for r in kept}
        entries = [e for e in entries if e[1] not in done_ids]
        for r in kept:
            print(text_line(r), flush=True)
    for project in sorted({e[0] for e in entries}):
        setup_project(project, find_mirror(args.mirrors, PROJECTS[project]["mirror"]))
    results = [None] * len(entries)
    keep_order = {e[1]: i for i, e in enumerate(CORPUS)}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(replay, i, e, args, args.mirrors): i for i, e in enumerate(entries)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            results[i] = fut.result()
            print(text_line(results[i]), flush=True)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(kept + [r for r in results if r], f, indent=1)
    results = sorted(kept + results, key=lambda r: keep_order.get(r["commit"], 0))
    tot, tricks = summary(results)
    print("\ntotals:", json.dumps(tot))
    print("tricks (tried, pin passed, completed):", json.dumps(tricks))
    if args.markdown:
        print()
        print(markdown(results, args))


if __name__ == "__main__":
    main()
