// `goal run --agent pi` with the real `pi` CLI (@mariozechner/pi-coding-agent 0.73.1), offline, the
// faux provider of the other Pi tests as the model: goal run drives pi turn after turn; pi's bash
// tool writes the code and runs `goal verify` as an agent would; goal run records the turn and
// calls `goal done`. And a pi that cannot authenticate stops the run at once (exit 2).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const piBin = join(pkg, "node_modules/.bin");
const fauxProvider = join(here, "faux-provider.ts");
const goalBin = process.env.GOAL_BIN || resolve(pkg, "../../target/debug/goal");

function project() {
  const root = mkdtempSync(join(tmpdir(), "goal-run-pi-"));
  const repo = join(root, "repo");
  mkdirSync(repo);
  for (const dir of ["home", "agent"]) mkdirSync(join(root, dir));
  const env = {
    ...process.env,
    HOME: join(root, "home"),
    PI_CODING_AGENT_DIR: join(root, "agent"),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    NO_COLOR: "1",
    GOAL_TIME_SCALE: "0",
    PATH: `${dirname(goalBin)}:${piBin}:${process.env.PATH}`,
  };
  const run = (cmd, args, extra = {}) =>
    spawnSync(cmd, args, { cwd: repo, env: { ...env, ...extra }, encoding: "utf8", timeout: 120_000 });
  const git = (...args) => {
    const r = run("git", args);
    assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Test");
  git("config", "user.email", "test@example.invalid");
  writeFileSync(
    join(repo, "test.sh"),
    "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
  );
  git("add", "test.sh");
  git("commit", "-q", "-m", "initial");
  const init = run(goalBin, ["init", "Say hello", "-c", "hello.txt exists and the test passes (verify: `sh test.sh`)"]);
  assert.equal(init.status, 0, init.stderr);
  return { root, repo, run, git, log: join(root, "model.jsonl") };
}

const piArgs = ["--offline", "--no-session", "-ne", "-nc", "-ns", "-np", "--no-themes", "-e", fauxProvider, "--provider", "faux", "--model", "faux-1"];

function goalRun(t, piArgs, extraEnv) {
  const args = ["run", "--json", "--turn-timeout", "90s", "--agent", "pi"];
  for (const a of piArgs) args.push("--agent-arg", a);
  return t.run(goalBin, args, extraEnv);
}

function events(r) {
  return r.stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

test("the goal and pi exist", () => {
  assert.ok(existsSync(goalBin), `build it first: cargo build (looked for ${goalBin})`);
  assert.ok(existsSync(join(piBin, "pi")), "npm ci in integrations/pi");
});

test("goal run --agent pi: pi's bash tool writes the code and runs goal verify; the gate completes the goal", () => {
  const t = project();
  const r = goalRun(t, piArgs, {
    GOAL_TEST_LOG: t.log,
    GOAL_TEST_SCRIPT: "tool",
    GOAL_TEST_BASH: "echo hello > hello.txt && goal verify -c 1",
  });
  assert.equal(r.status, 0, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const ev = events(r);
  const done = ev.filter((e) => e.event === "done");
  assert.equal(done.length, 1, r.stdout);
  // The model was sent goal run's prompt: the goal and the open criterion with its re-run line.
  const calls = readFileSync(t.log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const user = calls[0].messages.find((m) => m.role === "user").text;
  assert.match(user, /\[goal-driven-loop\] ACTIVE GOAL\nSay hello\n/);
  assert.match(user, /`goal verify -c 1`/);
  // One turn, recorded by the run (pi made no iteration commit), then complete and deleted.
  assert.equal(ev.filter((e) => e.event === "turn_start").length, 1);
  const runId = done[0].run;
  const subjects = t.git("log", "--format=%s%n%(trailers:key=Goal-Run,valueonly)", "-4");
  assert.match(subjects, /goal: iteration 1: turn 1: ok 2/);
  assert.ok(subjects.includes(runId), subjects);
  assert.equal(t.git("show", "HEAD:hello.txt").trim(), "hello");
  assert.ok(!existsSync(join(t.repo, ".agents/goal/GOAL.md")));
});

test("goal run --agent pi: a pi with no API key for its provider stops the run at once", () => {
  const t = project();
  const args = ["--offline", "--no-session", "-ne", "-nc", "-ns", "-np", "--no-themes", "--provider", "anthropic", "--model", "claude-sonnet-4-5"];
  const r = goalRun(t, args, { ANTHROPIC_API_KEY: "", ANTHROPIC_OAUTH_TOKEN: "" });
  assert.equal(r.status, 2, `stdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const ev = events(r);
  assert.equal(ev.filter((e) => e.event === "turn_start").length, 1);
  assert.equal(ev.filter((e) => e.event === "retry").length, 0);
});
