// End-to-end tests of the goal Pi extension: the real `pi` CLI (@mariozechner/pi-coding-agent
// 0.73.1), offline, with Pi's faux provider as the model, and the real `goal` binary built by cargo,
// in temporary git repositories.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const piCli = join(pkg, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
const extension = join(pkg, "index.ts");
const fauxProvider = join(here, "faux-provider.ts");
const goalBin = process.env.GOAL_BIN || resolve(pkg, "../../target/debug/goal");

/** Every temporary folder the tests made, removed when they are done. */
const roots = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function gitRepo() {
  const root = mkdtempSync(join(tmpdir(), "goal-pi-"));
  roots.push(root);
  const repo = join(root, "repo");
  mkdirSync(repo);
  for (const dir of ["home", "agent"]) mkdirSync(join(root, dir));
  const env = gitEnv(root);
  const git = (...args) => {
    const r = spawnSync("git", args, { cwd: repo, env, encoding: "utf8" });
    assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Test");
  git("config", "user.email", "test@example.invalid");
  writeFileSync(join(repo, "README.md"), "# project\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "initial");
  return { root, repo, git, log: join(root, "model.jsonl") };
}

/** The environment of the test process without what a calling git hook (GIT_DIR,
 *  GIT_INDEX_FILE, …) or a user's goal (GOAL_FILE) would leak into the test repositories. */
function cleanEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("GIT_") || key.startsWith("GOAL_")) delete env[key];
  }
  return env;
}

function gitEnv(root) {
  return {
    ...cleanEnv(),
    HOME: join(root, "home"),
    PI_CODING_AGENT_DIR: join(root, "agent"),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    NO_COLOR: "1",
    GOAL_BIN: goalBin,
  };
}

const piArgs = ["--offline", "--no-session", "-ne", "-nc", "-ns", "-np", "--no-themes", "-e", fauxProvider, "-e", extension, "--provider", "faux", "--model", "faux-1"];

/** One print-mode turn of the real pi CLI. */
function piPrint(t, prompt, extraEnv = {}) {
  const r = spawnSync(process.execPath, [piCli, ...piArgs, "-p", prompt], {
    cwd: t.repo,
    env: { ...gitEnv(t.root), GOAL_TEST_LOG: t.log, ...extraEnv },
    encoding: "utf8",
    timeout: 60_000,
  });
  return r;
}

/** The requests the faux model received, in order. */
function modelCalls(t) {
  if (!existsSync(t.log)) return [];
  return readFileSync(t.log, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

function goal(t, ...args) {
  return spawnSync(goalBin, args, { cwd: t.repo, env: gitEnv(t.root), encoding: "utf8" });
}

test("the goal binary exists", () => {
  assert.ok(existsSync(goalBin), `build it first: cargo build (looked for ${goalBin})`);
});

test("a trigger message creates GOAL.md and a commit; the next turn's system prompt carries the goal", () => {
  const t = gitRepo();
  const r = piPrint(t, "my goal is to make the CSV importer skip malformed rows");
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /ok 1/);
  const md = readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8");
  assert.match(md, /goal: "make the CSV importer skip malformed rows"/);
  assert.equal(t.git("log", "-1", "--format=%s").trim(), 'goal: init "make the CSV importer skip malformed rows"');

  const r2 = piPrint(t, "continue please");
  assert.equal(r2.status, 0, r2.stderr);
  const calls = modelCalls(t);
  const last = calls[calls.length - 1];
  assert.ok(
    last.systemPrompt.includes(
      "[goal-driven-loop] ACTIVE GOAL\nmake the CSV importer skip malformed rows\nProgress: 0/0 criteria passed, iteration 0\n",
    ),
    last.systemPrompt.slice(-600),
  );
  assert.ok(last.systemPrompt.includes("Next step: read .agents/goal/GOAL.md and continue iteration"));
  // The turn that set the goal asks for its criteria, test first; the next turn has only inject's text.
  const testFirst = "Test first: write or name the test of each criterion before the code, run `goal verify -c N` and see it fail, then make it pass; never edit a test to make it pass.";
  assert.ok(calls[0].systemPrompt.includes(testFirst), calls[0].systemPrompt.slice(-900));
  assert.ok(!last.systemPrompt.includes(testFirst), last.systemPrompt.slice(-900));
});

test("a second goal while one is active continues the active one (no UI: the timed default)", () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "First goal of the test", "-c", "a passes").status, 0);
  const head = t.git("rev-parse", "HEAD");
  const r = piPrint(t, "my goal is to rewrite the scheduler in Go");
  assert.equal(r.status, 0, r.stderr);
  assert.equal(t.git("rev-parse", "HEAD"), head);
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /First goal of the test/);
});

const DIRECTIVE = "Context window is over 80% full: save progress now.";

/** Pi compacts a full context on its own, in the background after agent_end; once it has, usage is
 *  unknown until the next answer, so whether a turn sees high usage would depend on timing. With
 *  auto-compaction off (in this test's own agent settings) usage stays high and known. */
function noAutoCompaction(t) {
  writeFileSync(join(t.root, "agent/settings.json"), JSON.stringify({ compaction: { enabled: false } }));
}

test("high context usage steers the save-progress directive in after a tool result", () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "Keep the goal across a full context", "-c", "a passes").status, 0);
  // A tiny context window: once the model has answered, usage is far above 80 %.
  noAutoCompaction(t);
  const r = piPrint(t, "go on", { GOAL_TEST_CONTEXT_WINDOW: "400", GOAL_TEST_SCRIPT: "tool" });
  assert.equal(r.status, 0, r.stderr);
  const calls = modelCalls(t);
  assert.ok(calls.length >= 2, `expected a tool call and a follow-up request, got ${calls.length}`);
  assert.ok(!calls[0].systemPrompt.includes(DIRECTIVE), "a fresh session has no usage yet");
  const steered = calls[1].messages.filter((m) => m.text.includes(DIRECTIVE));
  assert.equal(steered.length, 1, JSON.stringify(calls[1].messages));
  assert.ok(steered[0].text.includes("🔄 目标状态已保存至 .agents/goal/GOAL.md"));
});

test("an abandon message removes the goal", () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "A goal to drop later on", "-c", "a passes").status, 0);
  const r = piPrint(t, "放弃");
  assert.equal(r.status, 0, r.stderr);
  assert.ok(!existsSync(join(t.repo, ".agents/goal/GOAL.md")));
  assert.match(t.git("log", "-1", "--format=%B"), /Goal-Status: abandoned/);
});

test("an abandon word aimed elsewhere keeps the goal", () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "A goal to keep", "-c", "a passes").status, 0);
  const head = t.git("rev-parse", "HEAD");
  const r = piPrint(t, "ok, cancel the build and run the tests again");
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(t.repo, ".agents/goal/GOAL.md")));
  assert.equal(t.git("rev-parse", "HEAD"), head);
});

test("a missing goal binary leaves the turn intact", () => {
  const t = gitRepo();
  const r = piPrint(t, "my goal is to make the CSV importer skip malformed rows", { GOAL_BIN: join(t.root, "no-such-goal") });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /ok 1/);
  assert.equal(modelCalls(t).length, 1);
  assert.ok(!existsSync(join(t.repo, ".agents")));
});

test("a goal binary that fails or prints garbage leaves the turn intact", () => {
  const t = gitRepo();
  const fake = join(t.root, "fake-goal");
  writeFileSync(fake, "#!/bin/sh\necho 'not json'\nexit 3\n", { mode: 0o755 });
  const r = piPrint(t, "my goal is to make the CSV importer skip malformed rows", { GOAL_BIN: fake });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /ok 1/);
});

test("/goal runs goal with the arguments and shows the output", () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "Show the status through pi", "-c", "a passes").status, 0);
  const r = piPrint(t, '/goal criteria add "b returns 0 on success"');
  assert.equal(r.status, 0, r.stderr);
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /- \[ \] b returns 0 on success\n/);
  const s = piPrint(t, "/goal status");
  // Print mode keeps stdout for the model's answer: the command's output goes to stderr.
  assert.match(s.stdout + s.stderr, /Goal: Show the status through pi/);
  assert.equal(modelCalls(t).length, 0, "commands do not reach the model");
});

/** A `pi --mode rpc` session: send prompts one at a time, each resolving with the events it
 *  caused once `ends` agent_end events have arrived and the agent has then been idle for a moment
 *  (a follow-up turn may start after agent_end: the quiet time is there to catch an extra one, never
 *  to wait for an expected one). */
function rpcSession(t, extraEnv = {}, settleMs = 2500, onUi = () => undefined) {
  const child = spawn(process.execPath, [piCli, ...piArgs, "--mode", "rpc"], {
    cwd: t.repo,
    env: { ...gitEnv(t.root), GOAL_TEST_LOG: t.log, ...extraEnv },
  });
  let buffer = "";
  let events = [];
  let waiter = null;
  let quiet;
  let expectedEnds = 1;
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const event = JSON.parse(line);
      events.push(event);
      if (event.type === "extension_ui_request") {
        const response = onUi(event);
        if (response) child.stdin.write(JSON.stringify({ type: "extension_ui_response", id: event.id, ...response }) + "\n");
      }
      if (event.type === "agent_end") {
        clearTimeout(quiet);
        if (events.filter((e) => e.type === "agent_end").length >= expectedEnds) {
          quiet = setTimeout(() => waiter?.(), settleMs);
        }
      } else if (event.type === "agent_start") {
        clearTimeout(quiet);
      }
    }
  });
  let id = 0;
  return {
    prompt(message, ends = 1) {
      return new Promise((resolvePromise, reject) => {
        events = [];
        expectedEnds = ends;
        const guard = setTimeout(() => reject(new Error(`rpc timed out: ${events.map((e) => e.type)}`)), 60_000);
        waiter = () => {
          clearTimeout(guard);
          waiter = null;
          resolvePromise(events);
        };
        child.stdin.write(JSON.stringify({ id: String(++id), type: "prompt", message }) + "\n");
      });
    },
    /** Ends the session and waits for the process to be gone. */
    close() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((done) => {
        child.once("exit", () => done());
        child.kill();
      });
    },
  };
}

test("rpc mode: agent_end nudges once per prompt while the goal is in progress, never when blocked", async () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "Nudge the agent to keep going", "-c", "a passes").status, 0);
  const session = rpcSession(t);
  try {
    const events = await session.prompt("work on it", 2);
    const calls = modelCalls(t);
    assert.equal(calls.length, 2, `one prompt, one nudge: ${calls.length} model calls`);
    const nudge = calls[1].messages.filter((m) => m.text.includes("Continue the iteration."));
    assert.equal(nudge.length, 1, JSON.stringify(calls[1].messages));
    assert.equal(events.filter((e) => e.type === "agent_end").length, 2);

    // Blocked: no nudge.
    assert.equal(goal(t, "block", "--reason", "waiting for review").status, 0);
    const before = modelCalls(t).length;
    await session.prompt("anything else?");
    assert.equal(modelCalls(t).length, before + 1);
  } finally {
    await session.close();
  }
});

test("rpc mode: at high context usage the next prompt's system prompt carries the directive", async () => {
  const t = gitRepo();
  assert.equal(goal(t, "init", "Keep the goal across a full context", "-c", "a passes").status, 0);
  noAutoCompaction(t);
  const session = rpcSession(t, { GOAL_TEST_CONTEXT_WINDOW: "400" });
  try {
    await session.prompt("first", 2);
    await session.prompt("second", 2);
  } finally {
    await session.close();
  }
  const calls = modelCalls(t);
  assert.ok(calls.every((c) => c.systemPrompt.includes("[goal-driven-loop] ACTIVE GOAL")), "no compaction call");
  assert.ok(!calls[0].systemPrompt.includes(DIRECTIVE), "a fresh session has no usage yet");
  const secondTurn = calls.find((c) => c.messages.at(-1)?.text === "second");
  assert.ok(secondTurn, JSON.stringify(calls.map((c) => c.messages.at(-1)?.text)));
  assert.ok(secondTurn.systemPrompt.includes(DIRECTIVE), secondTurn.systemPrompt.slice(-900));
  assert.ok(secondTurn.systemPrompt.includes("当前进度：0/1 criteria 通过，第 0 轮迭代。"));
});

test("goal integrate pi installs the extension where Pi discovers it", () => {
  const t = gitRepo();
  const installed = goal(t, "integrate", "pi");
  assert.equal(installed.status, 0, installed.stderr);
  assert.equal(readFileSync(join(t.repo, ".pi/extensions/goal/index.ts"), "utf8"), readFileSync(extension, "utf8"));
  // No -e for the extension and no -ne: Pi finds it in .pi/extensions/ by itself.
  const args = ["--offline", "--no-session", "-nc", "-ns", "-np", "--no-themes", "-e", fauxProvider, "--provider", "faux", "--model", "faux-1"];
  const r = spawnSync(process.execPath, [piCli, ...args, "-p", "my goal is to make the CSV importer skip malformed rows"], {
    cwd: t.repo,
    env: { ...gitEnv(t.root), GOAL_TEST_LOG: t.log },
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(t.repo, ".agents/goal/GOAL.md")));
  assert.ok(modelCalls(t)[0].systemPrompt.includes("[goal-driven-loop] ACTIVE GOAL"));
});

// The stale-goal question with a UI (rpc mode answers the extension's select)

const OPTIONS = ["继续当前目标 (continue)", "替换为新目标 (replace)", "放弃当前目标 (abandon)"];

/** A goal is active; a new goal phrase arrives in an rpc session whose client answers the
 *  question with `answer` (an option, or a dismissal). `ends`: the turn, and the nudge that
 *  follows it while a goal is in progress. Returns the questions asked. */
async function answerTheQuestion(t, answer, ends = 2) {
  assert.equal(goal(t, "init", "First goal of the test", "-c", "a passes").status, 0);
  const asked = [];
  const session = rpcSession(t, {}, 1500, (request) => {
    if (request.method !== "select") return undefined;
    asked.push(request);
    return answer === undefined ? { cancelled: true } : { value: answer };
  });
  try {
    await session.prompt("my goal is to rewrite the scheduler in Go", ends);
  } finally {
    await session.close();
  }
  return asked;
}

test("rpc mode with a UI: the stale-goal question offers continue / replace / abandon, timed", async () => {
  const t = gitRepo();
  const asked = await answerTheQuestion(t, OPTIONS[0]);
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0].options, OPTIONS);
  assert.equal(asked[0].title, 'A goal is already active: "First goal of the test"');
  assert.equal(asked[0].timeout, 10_000, "the seed's 10 s default");
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /First goal of the test/);
  assert.match(t.git("log", "-1", "--format=%s"), /goal: init "First goal of the test"/);
});

test("rpc mode with a UI: dismissing the question continues the current goal", async () => {
  const t = gitRepo();
  await answerTheQuestion(t, undefined);
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /First goal of the test/);
  assert.equal(t.git("log", "--format=%s").trim().split("\n").length, 2);
});

test("rpc mode with a UI: replace abandons the current goal and starts the new one", async () => {
  const t = gitRepo();
  await answerTheQuestion(t, OPTIONS[1]);
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /goal: "rewrite the scheduler in Go"/);
  const statuses = t.git("log", "--format=%(trailers:key=Goal-Status,valueonly)").trim().split(/\n+/);
  assert.deepEqual(statuses.slice(0, 2), ["in-progress", "abandoned"]);
});

test("rpc mode with a UI: abandon removes the current goal and starts none", async () => {
  const t = gitRepo();
  await answerTheQuestion(t, OPTIONS[2], 1);
  assert.ok(!existsSync(join(t.repo, ".agents/goal/GOAL.md")));
  assert.match(t.git("log", "-1", "--format=%B"), /Goal-Status: abandoned/);
});

test("a goal call that hangs is killed after GOAL_PI_TIMEOUT_MS and the turn goes on", () => {
  const t = gitRepo();
  const slow = join(t.root, "slow-goal");
  // exec: the timeout's SIGKILL reaches the sleeping process itself, which leaves nothing behind.
  writeFileSync(slow, "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
  const started = Date.now();
  const r = piPrint(t, "my goal is to make the CSV importer skip malformed rows", {
    GOAL_BIN: slow,
    GOAL_PI_TIMEOUT_MS: "300",
  });
  const took = Date.now() - started;
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /ok 1/);
  assert.ok(took < 20_000, `the turn waited ${took} ms on a hung goal`);
  assert.ok(!existsSync(join(t.repo, ".agents")));
});

// splitArgs, the /goal command's word splitter, as a table (the extension loaded as Pi loads it,
// with jiti).
test("splitArgs splits like a shell, without one", async () => {
  const require = createRequire(import.meta.url);
  const { createJiti } = require("jiti");
  const { splitArgs } = await createJiti(import.meta.url).import(extension);
  const table = [
    ["status", ["status"]],
    ["  criteria   add  x ", ["criteria", "add", "x"]],
    ['criteria add "b returns 0 on success"', ["criteria", "add", "b returns 0 on success"]],
    ["criteria add 'it is \"fine\"'", ["criteria", "add", 'it is "fine"']],
    ["'a\\b'", ["a\\b"]],
    ['add "say \\"hi\\""', ["add", 'say "hi"']],
    ["a\\ b c", ["a b", "c"]],
    ['x "" y', ["x", "", "y"]],
    ["x ''", ["x", ""]],
    ['pre"mid"post', ["premidpost"]],
    ["$(touch pwned) `id` ; rm -rf /", ["$(touch", "pwned)", "`id`", ";", "rm", "-rf", "/"]],
    ["trailing\\", ["trailing\\"]],
    ["", []],
  ];
  for (const [text, words] of table) assert.deepEqual(splitArgs(text), words, text);
});
