// The extension as a Pi package: `pi install <folder> -l` with the real `pi` CLI
// (@mariozechner/pi-coding-agent 0.73.1), offline, then a plain `pi -p` (no `-e` for the extension)
// loads it from the project's settings. Once for integrations/pi, and once for the npm package
// `scripts/package` builds (target/package/goal-cli-<version>.tgz, unpacked), which carries the same
// extension under its `pi` manifest so that `pi install npm:goal-cli` works once it is published.

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = resolve(here, "..");
const piCli = join(pkg, "node_modules/@mariozechner/pi-coding-agent/dist/cli.js");
const fauxProvider = join(here, "faux-provider.ts");
const goalBin = process.env.GOAL_BIN || resolve(pkg, "../../target/debug/goal");
const packages = resolve(pkg, "../../target/package");

const roots = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function project() {
  const root = mkdtempSync(join(tmpdir(), "goal-pi-install-"));
  roots.push(root);
  const repo = join(root, "repo");
  mkdirSync(repo);
  for (const dir of ["home", "agent"]) mkdirSync(join(root, dir));
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("GIT_") || key.startsWith("GOAL_")) delete env[key];
  Object.assign(env, {
    HOME: join(root, "home"),
    PI_CODING_AGENT_DIR: join(root, "agent"),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    NO_COLOR: "1",
    GOAL_BIN: goalBin,
    GOAL_TEST_LOG: join(root, "model.jsonl"),
  });
  const run = (cmd, args) => spawnSync(cmd, args, { cwd: repo, env, encoding: "utf8", timeout: 60_000 });
  const git = (...args) => {
    const r = run("git", args);
    assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Test");
  git("config", "user.email", "test@example.invalid");
  writeFileSync(join(repo, "README.md"), "# project\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "initial");
  const pi = (...args) => run(process.execPath, [piCli, ...args]);
  return { root, repo, git, pi, log: env.GOAL_TEST_LOG };
}

/** Install `folder` as a project package, then check that a plain `pi -p` runs the extension. */
function installAndUse(folder) {
  const t = project();
  const installed = t.pi("install", folder, "-l");
  assert.equal(installed.status, 0, installed.stderr);
  const settings = JSON.parse(readFileSync(join(t.repo, ".pi/settings.json"), "utf8"));
  // Pi keeps the path relative to the settings file.
  assert.deepEqual(settings.packages.map((p) => resolve(t.repo, ".pi", p)), [folder]);

  const args = ["--offline", "--no-session", "-nc", "-ns", "-np", "--no-themes", "-e", fauxProvider, "--provider", "faux", "--model", "faux-1", "-p"];
  const first = t.pi(...args, "my goal is to make the CSV importer skip malformed rows");
  assert.equal(first.status, 0, first.stderr);
  assert.match(readFileSync(join(t.repo, ".agents/goal/GOAL.md"), "utf8"), /goal: "make the CSV importer skip malformed rows"/);
  assert.equal(t.git("log", "-1", "--format=%s").trim(), 'goal: init "make the CSV importer skip malformed rows"');
  const second = t.pi(...args, "continue please");
  assert.equal(second.status, 0, second.stderr);
  const calls = readFileSync(t.log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(
    calls[calls.length - 1].systemPrompt.includes("[goal-driven-loop] ACTIVE GOAL\nmake the CSV importer skip malformed rows\n"),
    calls[calls.length - 1].systemPrompt.slice(-400),
  );
}

test("pi install of integrations/pi loads the extension from the project's settings", () => {
  installAndUse(pkg);
});

test("pi install of the npm package (its pi manifest) loads the same extension", (t) => {
  const tarball = existsSync(packages) && readdirSync(packages).find((f) => /^goal-cli-\d[^-]*\.tgz$/.test(f));
  if (!tarball) {
    assert.ok(!process.env.GOAL_PACKAGE_TESTS, `no target/package/goal-cli-<version>.tgz: run scripts/package first`);
    t.skip("no npm package built (scripts/package)");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "goal-npm-unpacked-"));
  roots.push(dir);
  const untar = spawnSync("tar", ["-xzf", join(packages, tarball), "-C", dir], { encoding: "utf8" });
  assert.equal(untar.status, 0, untar.stderr);
  const manifest = JSON.parse(readFileSync(join(dir, "package/package.json"), "utf8"));
  assert.deepEqual(manifest.pi, { extensions: ["./pi/index.ts"] });
  assert.equal(
    readFileSync(join(dir, "package/pi/index.ts"), "utf8"),
    readFileSync(join(pkg, "index.ts"), "utf8"),
    "the npm package carries integrations/pi/index.ts as it is",
  );
  installAndUse(join(dir, "package"));
});
