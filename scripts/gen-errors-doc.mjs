#!/usr/bin/env node
// `npm run docs:errors`: writes the generated part of docs/errors.md (the error
// catalogue, scripts/gen-errors-doc.ts) between its markers; `--check` writes
// nothing and exits 1 when the file is out of date. Run with tsx, which loads
// the TypeScript modules the catalogue is built from.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { replaceGenerated } from "./gen-errors-doc.ts";

const path = join(dirname(fileURLToPath(import.meta.url)), "..", "docs", "errors.md");
const current = readFileSync(path, "utf8");
const next = replaceGenerated(current);
if (process.argv.includes("--check")) {
  if (next !== current) {
    console.error("docs/errors.md is out of date: run npm run docs:errors");
    process.exit(1);
  }
  console.log("docs/errors.md is up to date");
} else if (next === current) {
  console.log("docs/errors.md: no change");
} else {
  writeFileSync(path, next);
  console.log("docs/errors.md: catalogue written");
}
