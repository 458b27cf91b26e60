#!/usr/bin/env node
// `npx git-rag …`: runs the binary of this platform's package (esbuild's
// layout: `git-rag` lists one optional dependency per platform, npm installs
// the one whose `os` and `cpu` match).
"use strict";
const { spawnSync } = require("child_process");
const path = require("path");

const platform = `${process.platform}-${process.arch}`;
const pkg = `@git-rag/${platform}`;
const exe = process.platform === "win32" ? "git-rag.exe" : "git-rag";
let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", exe);
} catch (e) {
  console.error(`git-rag: no binary for ${platform} (the package ${pkg} is not installed; is this platform one git-rag ships for?)`);
  process.exit(1);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`git-rag: cannot run ${binary}: ${run.error.message}`);
  process.exit(1);
}
process.exit(run.status === null ? 1 : run.status);
