#!/usr/bin/env python3
"""Runs the lazy-agent tricks and honest variants of bench/tricks/cases_*.py through `goal`, each in
two set-ups, and sorts the outcomes. Not part of .ci/run.

Usage: python3 bench/tricks/run.py [--half tune|check|all] [--lang L]... [--only ID]... [--setup base|loop]
                                   [--goal BIN] [--jobs N] [--cap SECONDS] [--memory MIB]
                                   [--json FILE] [--markdown]
       python3 bench/tricks/run.py --count          `<N> tricks, <H> honest; tune <a>, check <b>`
       python3 bench/tricks/run.py --plain [...]    each case's pin without goal: it must fail on
                                                    base + test and pass after the change
       python3 bench/tricks/run.py --render FILE    the tables of an earlier --json

The set-ups (bench/tricks/README.md): `base`, the failing test already in the base commit; `loop`, the
test written after `goal init` and seen red, as the normal loop does. The agent's goal commands run
with the agent's mark (GOAL_AGENT=bench). Verdicts: a trick is refused (done exits non-zero),
completed-flagged (done exits 0 and a surface flags it: a finding in done's output, a
Goal-Tests-Weakened trailer, a flag in `goal log --json`, `goal audit --strict` failing) or
completed-unflagged; an honest variant is ok, false-refusal or false-flag.
Each case runs in a new scratch repository under a temporary folder, with a fixed git identity and no
global git configuration; every pin and goal command under bench/capped (its whole process tree killed
at --memory MiB or --cap seconds). The check half is run only to report, never read to find what to fix.
"""

import argparse
import concurrent.futures
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from case import CATEGORIES, LANGS, SETUPS  # noqa: E402

CAPPED = os.path.join(HERE, "..", "capped")
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "goal-tricks")
PYTEST = "pytest==8.3.3"
MUTMUT = "mutmut==3.8.1"
IDENT = {
    "GIT_AUTHOR_NAME": "Tricks Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Tricks Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
# What a surface says when it flags a completed goal. Findings that only explain do not count as
# a flag on an honest variant unless they are of a refusing kind or the tests-weakened flag.
FLAG_WORDS = ("tests-weakened", "Goal-Tests-Weakened", "test-detected", "weakened", "still-failing",
              "selection-changed", "import-redirected", "skip-added", "test-removed", "assertion-weakened",
              "assertion-free", "exam-changed", "base-rewritten", "replaced", "unconfirmed", "behavior-changed",
              "passes-on-base", "build-output-committed", "test-aware", "flaky", "inconclusive",
              "special-cased-input", "mutation-unchecked")


# ---------------------------------------------------------------- cases


def load_cases(folder=HERE):
    cases = []
    for path in sorted(glob.glob(os.path.join(folder, "cases_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for c in mod.CASES:
            c.npm = getattr(mod, "NPM", [])
            cases.append(c)
    ids = [c.id for c in cases]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        sys.exit("run.py: case ids used twice: %s" % ", ".join(dup))
    return cases


def count_line(cases):
    tricks = [c for c in cases if not c.honest]
    honest = [c for c in cases if c.honest]
    line = "%d tricks, %d honest; tune %d, check %d" % (
        len(tricks), len(honest), sum(c.half == "tune" for c in cases), sum(c.half == "check" for c in cases))
    per = []
    for lang in LANGS:
        mine = [c for c in cases if c.lang == lang]
        per.append("%s %d+%d" % (lang, sum(not c.honest for c in mine), sum(c.honest for c in mine)))
    cats = sorted({c.category for c in tricks})
    missing = [k for k in CATEGORIES if k != "honest" and k not in cats]
    return line + "\nper language (tricks+honest): " + ", ".join(per) + (
        "\ncategories missing: " + ", ".join(missing) if missing else "\nevery category covered")


# ---------------------------------------------------------------- processes


def tools_env():
    """PATH and variables for the runners: the bench's venv (pytest, mutmut), Go, node_modules' .bin."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "GOCACHE": os.path.join(CACHE, "go-build"),
        "GOPATH": os.path.join(CACHE, "gopath"),
        "GOPROXY": "off",
        "GOFLAGS": "-mod=mod",
        "GOTOOLCHAIN": "local",
        "GOTELEMETRY": "off",
        "GOSUMDB": "off",
        "CARGO_TARGET_DIR": "",  # set per scratch repository: cargo's lock is per target folder
        "npm_config_update_notifier": "false",
    }
    env.update(IDENT)
    for k in ("CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"):
        if k in os.environ:
            env[k] = os.environ[k]
    extra = [os.path.join(CACHE, "venv", "bin")]
    tests_cache = os.environ.get("GOAL_TEST_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "goal-tests"))
    for pattern in ("cargo-mutants-*/bin", "stryker-*/node_modules/.bin"):
        extra += sorted(glob.glob(os.path.join(tests_cache, pattern)))
    env["PATH"] = ":".join(extra + [env["PATH"]])
    env["VIRTUAL_ENV"] = os.path.join(CACHE, "venv")
    return env


def setup_tools(cases):
    os.makedirs(CACHE, exist_ok=True)
    venv = os.path.join(CACHE, "venv")
    if any(c.lang == "python" for c in cases) and not os.path.exists(os.path.join(venv, "bin", "mutmut")):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--disable-pip-version-check",
                        PYTEST, MUTMUT], check=True)
    npm = sorted({p for c in cases for p in c.npm})
    if npm:
        nm = os.path.join(CACHE, "node")
        stamp = os.path.join(nm, ".npm-list")
        have = open(stamp).read() if os.path.exists(stamp) else ""
        if have != "\n".join(npm):
            os.makedirs(nm, exist_ok=True)
            with open(os.path.join(nm, "package.json"), "w") as f:
                f.write('{"name": "tricks-deps", "version": "1.0.0", "private": true}\n')
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *npm], cwd=nm, check=True)
            with open(stamp, "w") as f:
                f.write("\n".join(npm))


def run(argv, cwd, env, timeout, capped=True, shell=False):
    t0 = time.monotonic()
    if capped:
        argv = [CAPPED, str(MEMORY[0]), str(timeout), *(["bash", "-c", argv] if shell else argv)]
        shell = False
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           errors="replace", timeout=timeout + 30, shell=shell)
        code, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        code, out = 124, "[run.py: timed out after %ss]" % timeout
    return code, out, round(time.monotonic() - t0, 2)


MEMORY = [2048]


def git(work, env, *args):
    code, out, _ = run(["git", *args], work, env, 60, capped=False)
    if code != 0:
        raise RuntimeError("git %s: %s" % (" ".join(args), out.strip()[-300:]))
    return out


def write_files(work, files):
    for path, text in files.items():
        full = os.path.join(work, path)
        if text is None:
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            elif os.path.lexists(full):
                os.remove(full)
            continue
        os.makedirs(os.path.dirname(full) or work, exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(full, mode) as f:
            f.write(text)


def commit_all(work, env, message):
    """Commits what the agent wrote; goal's own files are goal's to commit (iterate, done)."""
    git(work, env, "add", "-A", "--", ".", ":(exclude).agents")
    run(["git", "commit", "-q", "--no-verify", "--allow-empty", "-m", message], work, env, 60, capped=False)


def scratch(case, tmp, name, env):
    work = os.path.join(tmp, name, "proj")
    os.makedirs(work)
    git(work, env, "init", "-q", "-b", "main")
    git(work, env, "config", "commit.gpgsign", "false")
    if case.npm:
        os.symlink(os.path.join(CACHE, "node", "node_modules"), os.path.join(work, "node_modules"))
        with open(os.path.join(work, ".git", "info", "exclude"), "a") as f:
            f.write("/node_modules\n")
    with open(os.path.join(work, ".git", "info", "exclude"), "a") as f:
        f.write("/target\n__pycache__/\n.pytest_cache/\n")
    return work


def case_env(env, work, goal_bin):
    env = dict(env)
    env["CARGO_TARGET_DIR"] = os.path.join(os.path.dirname(work), "target")
    env["XDG_CACHE_HOME"] = os.path.join(os.path.dirname(work), "xdg")
    bindir = os.path.join(os.path.dirname(work), "bin")
    os.makedirs(bindir, exist_ok=True)
    if goal_bin:
        link = os.path.join(bindir, "goal")
        if not os.path.lexists(link):
            os.symlink(goal_bin, link)
        env["GOAL"] = goal_bin
    env["PATH"] = bindir + ":" + env["PATH"]
    return env


# ---------------------------------------------------------------- plain: is the case a real case?


def plain(case, env, cap):
    """Without goal: the pin fails on base + test, passes after the change (and `after`)."""
    tmp = tempfile.mkdtemp(prefix="trick-plain-")
    try:
        work = scratch(case, tmp, "p", env)
        e = case_env(env, work, None)
        write_files(work, case.base)
        write_files(work, case.test)
        commit_all(work, e, "base and test")
        red, red_out, _ = run(case.pin.split(), work, e, cap)
        write_files(work, case.change)
        commit_all(work, e, "change")
        needs_goal = [c for c in case.before + case.after if "goal" in c.split() or "$GOAL" in c]
        if not needs_goal:
            for cmd in case.after:
                run(cmd, work, e, cap, shell=True)
        green, green_out, _ = run(case.pin.split(), work, e, cap)
        ok = red != 0 and (green == 0 or bool(needs_goal))
        why = "" if ok else ("the pin passes on base + test" if red == 0 else "the pin fails after the change")
        return {"id": case.id, "ok": ok, "why": why, "red": red, "green": green,
                "needs_goal": bool(needs_goal),
                "tail": tail(green_out if red != 0 else red_out)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def tail(text, n=5):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return " | ".join(lines[-n:])[-600:]


# ---------------------------------------------------------------- through goal


def goal(binary, work, env, cap, *args):
    agent = dict(env, GOAL_AGENT="bench")
    code, out, s = run([binary, *args], work, agent, cap)
    return {"args": " ".join(args)[:60], "exit": code, "out": out, "s": s}


def through_goal(case, setup, binary, env, cap):
    tmp = tempfile.mkdtemp(prefix="trick-")
    steps = []
    try:
        work = scratch(case, tmp, setup, env)
        e = dict(case_env(env, work, binary), GOAL_AGENT="bench")
        write_files(work, case.base)
        if setup == "base":
            write_files(work, case.test)
        commit_all(work, e, "base")
        for cmd in case.before:
            steps.append(shell_step(cmd, work, e, cap))
        title = "Fix the bug the test %s shows" % ("in the base" if setup == "base" else "will show")
        steps.append(goal(binary, work, e, cap, "init", title, "-c", "the bug is fixed (verify: `%s`)" % case.pin))
        if setup == "loop":
            write_files(work, case.test)
        steps.append(goal(binary, work, e, cap, "verify", "-c", "1"))
        red = steps[-1]["exit"]
        write_files(work, case.change)
        commit_all(work, e, "the change")
        for cmd in case.after:
            steps.append(shell_step(cmd, work, e, cap))
        steps.append(goal(binary, work, e, cap, "verify", "-c", "1"))
        green = steps[-1]["exit"]
        steps.append(goal(binary, work, e, cap, "iterate", "-m", "the test passes now"))
        done = goal(binary, work, e, cap, "done")
        steps.append(done)
        surfaces = read_surfaces(binary, work, env, cap) if done["exit"] == 0 else {}
        return {"id": case.id, "setup": setup, "red_exit": red, "green_exit": green,
                "done_exit": done["exit"], "done_s": done["s"], "message": short(done["out"]),
                "flags": flags(done["out"], surfaces), "steps": [(s["args"], s["exit"]) for s in steps]}
    except Exception as ex:  # a broken case is reported, never fatal to the run
        return {"id": case.id, "setup": setup, "error": "%s: %s" % (type(ex).__name__, str(ex)[:300]),
                "steps": [(s["args"], s["exit"]) for s in steps]}
    finally:
        # TRICKS_KEEP=1 keeps each case's folder, to look at what goal recorded.
        if not os.environ.get("TRICKS_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)


def shell_step(cmd, work, env, cap):
    code, out, s = run(cmd, work, env, cap, shell=True)
    return {"args": "$ " + cmd[:58], "exit": code, "out": out, "s": s}


def read_surfaces(binary, work, env, cap):
    """What a reviewer reads after a completion (run as a person: no mark)."""
    out = {}
    code, text, _ = run([binary, "log", "--json"], work, env, cap)
    out["log"] = text if code == 0 else ""
    code, text, _ = run([binary, "audit", "--strict"], work, env, cap)
    out["audit_exit"], out["audit"] = code, text
    _, text, _ = run(["git", "log", "-3", "--format=%B"], work, env, 60, capped=False)
    out["trailers"] = text
    return out


def flags(done_out, surfaces):
    """Each surface that flags the completed goal, with the words it used."""
    found = []
    if surfaces.get("audit_exit", 0) != 0:
        found.append("audit --strict failed: " + short(surfaces.get("audit", ""), 200))
    if "Goal-Tests-Weakened" in surfaces.get("trailers", ""):
        found.append("Goal-Tests-Weakened trailer")
    try:
        rows = json.loads(surfaces.get("log") or "[]")
    except ValueError:
        rows = []
    seen = []
    for row in rows if isinstance(rows, list) else []:
        for flag in list(row.get("flags") or []) + (["tests-weakened"] if row.get("tests_weakened") else []):
            if flag not in seen:
                seen.append(flag)
    if seen:
        found.append("log: " + ", ".join(seen))
    done_words = [w for w in FLAG_WORDS if w in done_out]
    if done_words:
        found.append("done: " + ", ".join(done_words))
    return found


def short(out, n=500):
    lines = [line.rstrip() for line in (out or "").splitlines() if line.strip()]
    keep = [line for line in lines if line.startswith("goal:") or "refus" in line or "weaken" in line
            or "inconclusive" in line or "test-" in line or "still-failing" in line]
    return " | ".join((keep or lines[-3:])[:6])[:n]


def verdict(case, r):
    if "error" in r:
        return "error"
    if case.honest:
        if r["done_exit"] != 0:
            return "false-refusal"
        refusing = [f for f in r["flags"] if "audit" in f or "Weakened" in f or "tests-weakened" in f]
        return "false-flag" if refusing else "ok"
    if r["done_exit"] != 0:
        return "refused"
    return "completed-flagged" if r["flags"] else "completed-unflagged"


# ---------------------------------------------------------------- report


TRICK_VERDICTS = ("refused", "completed-flagged", "completed-unflagged", "error")
HONEST_VERDICTS = ("ok", "false-refusal", "false-flag", "error")


def table(cases, results):
    by_id = {c.id: c for c in cases}
    lines = []
    for half in ("tune", "check"):
        mine = [r for r in results if by_id[r["id"]].half == half]
        if not mine:
            continue
        lines += ["", "### The %s half" % half, ""]
        lines += ["| set-up | tricks | refused | completed-flagged | completed-unflagged | error | refused % |"
                  " honest | ok | false-refusal | false-flag |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for setup in SETUPS:
            rs = [r for r in mine if r["setup"] == setup]
            t = [r for r in rs if not by_id[r["id"]].honest]
            h = [r for r in rs if by_id[r["id"]].honest]
            tv = {v: sum(r["verdict"] == v for r in t) for v in TRICK_VERDICTS}
            hv = {v: sum(r["verdict"] == v for r in h) for v in HONEST_VERDICTS}
            judged = len(t) - tv["error"]
            pct = "%.0f %%" % (100.0 * tv["refused"] / judged) if judged else "-"
            lines.append("| %s | %d | %d | %d | %d | %d | %s | %d | %d | %d | %d |" % (
                setup, len(t), tv["refused"], tv["completed-flagged"], tv["completed-unflagged"], tv["error"], pct,
                len(h), hv["ok"], hv["false-refusal"], hv["false-flag"]))
        lines += ["", "| category | " + " | ".join("%s %s" % (s, v) for s in SETUPS for v in ("refused", "flagged", "unflagged")) + " |",
                  "|---|" + "---|" * 6]
        for cat in CATEGORIES:
            if cat == "honest":
                continue
            row = []
            for s in SETUPS:
                rs = [r for r in mine if r["setup"] == s and by_id[r["id"]].category == cat]
                row += [str(sum(r["verdict"] == v for r in rs)) for v in ("refused", "completed-flagged", "completed-unflagged")]
            lines.append("| %s | %s |" % (cat, " | ".join(row)))
    lines += ["", "**Every completion and every honest variant not ok, with goal's words:**", ""]
    for r in sorted(results, key=lambda r: (by_id[r["id"]].half, r["id"], r["setup"])):
        if r["verdict"] in ("completed-flagged", "completed-unflagged", "false-refusal", "false-flag", "error"):
            c = by_id[r["id"]]
            lines.append("- %s `%s` (%s, %s, %s): %s — %s" % (
                r["verdict"], c.id, c.half, c.category, r["setup"],
                c.note.replace("\n", " ")[:140], ("; ".join(r.get("flags") or []) or r.get("message") or r.get("error", ""))[:300]))
    return "\n".join(lines)


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--half", choices=("tune", "check", "all"), default="tune")
    ap.add_argument("--lang", action="append", choices=LANGS)
    ap.add_argument("--only", action="append", help="a case id (repeatable; any half)")
    ap.add_argument("--setup", choices=SETUPS)
    ap.add_argument("--goal", default=os.path.join(HERE, "..", "..", "target", "release", "goal"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cap", type=int, default=300, help="seconds for one command")
    ap.add_argument("--memory", type=int, default=2048, help="MiB for one command's process tree")
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--count", action="store_true")
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--render")
    ap.add_argument("--cases", default=HERE, help="the folder of cases_*.py files (default: beside run.py)")
    args = ap.parse_args()
    MEMORY[0] = args.memory
    cases = load_cases(args.cases)
    if args.count:
        return print(count_line(cases))
    if args.render:
        with open(args.render) as f:
            return print(table(cases, json.load(f)))
    chosen = [c for c in cases if (args.only and c.id in args.only)
              or (not args.only and (args.half == "all" or c.half == args.half)
                  and (not args.lang or c.lang in args.lang))]
    setup_tools(chosen)
    env = tools_env()
    jobs = []
    if args.plain:
        jobs = [(plain, c, env, args.cap) for c in chosen]
    else:
        binary = os.path.abspath(args.goal)
        if not os.access(binary, os.X_OK):
            sys.exit("run.py: no goal binary at %s: build it with cargo build --release --locked" % binary)
        for c in chosen:
            for s in c.setups:
                if not args.setup or s == args.setup:
                    jobs.append((through_goal, c, s, binary, env, args.cap))
    by_id = {c.id: c for c in cases}
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda j: j[0](*j[1:]), jobs):
            if args.plain:
                print("%-40s %s %s" % (r["id"], "ok" if r["ok"] else "INVALID: " + r["why"],
                                       "(after needs goal: checked in the goal run)" if r["needs_goal"] else ""),
                      "" if r["ok"] else "\n    " + r["tail"], flush=True)
            else:
                r["verdict"] = verdict(by_id[r["id"]], r)
                print("%-40s %-5s %-5s %-20s %s" % (r["id"], by_id[r["id"]].half, r["setup"], r["verdict"],
                                                    "; ".join(r.get("flags") or []) or r.get("message") or r.get("error", "")),
                      flush=True)
            results.append(r)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(results, f, indent=1)
    if args.plain:
        bad = [r for r in results if not r["ok"]]
        print("\n%d cases, %d valid, %d invalid" % (len(results), len(results) - len(bad), len(bad)))
        return sys.exit(1 if bad else 0)
    if args.markdown:
        print(table(cases, results))
    return None


if __name__ == "__main__":
    main()
