// Reading the files a command is pointed at (--file, --config): a missing or
// unreadable file is the caller's mistake, reported as one usage line.
import { readFileSync } from "node:fs";
import { CliError } from "./client.ts";

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  ENOTDIR: "a parent is not a directory",
};

export function readLocalFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw new CliError(`cannot read ${path}: ${REASONS[code] ?? (error as Error).message}`, "usage");
  }
}

export function readLocalJson(path: string): unknown {
  const text = readLocalFile(path);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`, "usage");
  }
}
