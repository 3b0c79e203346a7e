#!/usr/bin/env node
// The `goal` command of the goal-cli npm package: runs the native binary from the platform
// package npm installed beside it (goal-cli-<os>-<cpu>, an optional dependency whose `os` and
// `cpu` fields let npm fetch only the one that fits). Nothing here decides anything: arguments,
// standard streams and the exit status pass through. Git hook shims installed by
// `goal hooks install` name the native binary itself, so this launcher is never on a commit's path.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

const manifest = require("../package.json");

function fail(message, hint) {
  process.stderr.write(`goal: error: ${message}\nhint: ${hint}\n`);
  process.exit(2);
}

const platform = `${process.platform}-${process.arch}`;
const name = `${manifest.name}-${platform}`;
const known = Object.keys(manifest.optionalDependencies || {});
if (!known.includes(name)) {
  fail(
    `goal-cli ${manifest.version} has no binary for ${platform} (it has: ${known.map((n) => n.slice(manifest.name.length + 1)).join(", ")})`,
    "install from source with a Rust toolchain: `cargo install --locked goal` (or build a clone: `cargo install --locked --path .`)",
  );
}

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", "goal");
} catch {
  fail(
    `the package ${name} that carries goal's binary for ${platform} is not installed (npm leaves optional dependencies out with --omit=optional or --no-optional)`,
    `reinstall with them: \`npm install -g ${manifest.name}@${manifest.version}\`, or add it yourself: \`npm install -g ${name}@${manifest.version}\``,
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
// Ctrl-C and Ctrl-\ reach the binary from the terminal itself (same process group): passing them
// on again would count twice. Signals sent to this process alone are passed on.
for (const signal of ["SIGINT", "SIGQUIT"]) process.on(signal, () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  fail(`cannot run ${binary}: ${error.message}`, `reinstall the package: \`npm install -g ${manifest.name}@${manifest.version}\``);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
