#!/usr/bin/env python3
"""`goal run`'s own overhead per turn: everything but the agent, its iteration commit included.

Usage: python3 bench/run_overhead.py [--goal PATH] [--turns N] [--runs K]

Builds a repository with a goal of 3 criteria and 10 recorded iterations, then runs
`goal run --max-iterations N -- sh agent.sh` (a trivial agent that appends a line to a file and
says what it added, so every turn is a real iteration commit and no turn looks stagnant) and
times it. The agent's own cost is measured by running the same script N times directly, and the
one-off start of `goal` (`goal status`) is subtracted once:

    overhead per turn = (T(goal run, N turns) - T(goal status) - T(agent × N)) / N

Prints the median over K runs (default 5) of a fresh repository each. Bar: ≤ 50 ms per turn.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The hermetic environment of bench.py, with every wait of `goal run` made instant.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ENV as BENCH_ENV  # noqa: E402

ENV = dict(BENCH_ENV, GOAL_TIME_SCALE="0")

AGENT = """#!/bin/sh
cat > /dev/null
echo "line $GOAL_ITERATION" >> work.txt
echo "added line $GOAL_ITERATION to work.txt"
"""


def run(cmd, cwd, check=True):
    return subprocess.run(cmd, cwd=cwd, env=ENV, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def timed(cmd, cwd, ok=(0,)):
    start = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if r.returncode not in ok:
        sys.exit(f"{cmd} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return elapsed


def repository(goal, root):
    repo = os.path.join(root, "repo")
    os.makedirs(repo)
    run(["git", "init", "-q", "-b", "main"], repo)
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write("# bench\n")
    run(["git", "add", "-A"], repo)
    run(["git", "commit", "-q", "-m", "initial"], repo)
    run([goal, "init", "Benchmark goal", "-c", "one (verify: `sh t.sh`)", "-c", "two", "-c", "three"], repo)
    for i in range(10):
        with open(os.path.join(repo, "work.txt"), "a") as f:
            f.write(f"setup {i}\n")
        run([goal, "iterate", "-m", f"added setup line {i}"], repo)
    agent = os.path.join(root, "agent.sh")
    with open(agent, "w") as f:
        f.write(AGENT)
    return repo, agent


def once(goal, turns):
    root = tempfile.mkdtemp(prefix="goal-run-bench-")
    try:
        repo, agent = repository(goal, root)
        # The agent alone, as goal run starts it (sh, the prompt on stdin), N times.
        scratch = os.path.join(root, "scratch")
        os.makedirs(scratch)
        start = time.perf_counter()
        for i in range(turns):
            subprocess.run(["sh", agent], cwd=scratch, input=b"prompt", env=dict(ENV, GOAL_ITERATION=str(i)),
                           stdout=subprocess.DEVNULL, check=True)
        agent_s = time.perf_counter() - start
        startup_s = timed([goal, "status"], repo)
        run_s = timed([goal, "run", "--max-iterations", str(turns), "--", "sh", agent], repo, ok=(3,))
        iterations = subprocess.run(["git", "log", "--oneline", "--grep", "^goal: iteration"], cwd=repo, env=ENV,
                                    capture_output=True, text=True).stdout.count("\n")
        if iterations != 10 + turns:
            sys.exit(f"expected {10 + turns} iteration commits, found {iterations}")
        return (run_s - startup_s - agent_s) / turns
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--goal", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "goal"))
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    goal = os.path.abspath(a.goal)
    if not os.path.exists(goal):
        sys.exit(f"no {goal}: build it with `cargo build --release`")
    samples = [once(goal, a.turns) for _ in range(a.runs)]
    per_turn_ms = statistics.median(samples) * 1000
    verdict = "ok" if per_turn_ms <= 50 else "OVER THE BAR"
    print(f"goal run overhead per turn: {per_turn_ms:.1f} ms (median of {a.runs} runs of {a.turns} turns, "
          f"10-iteration repository; bar ≤ 50 ms) {verdict}")
    print("  samples (ms): " + ", ".join(f"{s * 1000:.1f}" for s in samples))


if __name__ == "__main__":
    main()
