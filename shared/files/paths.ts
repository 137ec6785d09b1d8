// Workspace file paths: which paths exist, what
// kind of file each is, and a plugin's name. A path is the identity of a
// lifecycle target (`file:<path>`), so the rules are strict and never
// normalise: one file has exactly one spelling.
import { err, ok, type Result } from "../result";

/** `lib/…` holds lambdas (request hooks, helpers), `plugins/…` plugins. */
export type FileKind = "lib" | "plugin";

export const FILE_EXTENSIONS = [".ts", ".js"] as const;
export type FileLanguage = "ts" | "js";

/** Longest accepted path, in characters (all of them ASCII). */
export const FILE_PATH_MAX_CHARS = 200;

export interface WorkspaceFile {
  path: string;
  kind: FileKind;
  /** File name without folder and extension: the plugin name for plugins (`plugins/redact.ts` → `redact`). */
  name: string;
  language: FileLanguage;
}

/**
 * One path segment: ASCII letters, digits, `_`, `-` and `.`, not starting with
 * a dot (so `.`, `..` and hidden files are out) — a charset that needs no
 * quoting in URLs, shells, R2 keys or `lib/x.ts:fn` references.
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const FILE_NAME = /^(.+)\.(ts|js)$/;

const describe = (path: string) => JSON.stringify(path.length > 60 ? `${path.slice(0, 60)}…` : path);

/** The file a path names, or why it names none (a readable sentence). */
export function parseFilePath(path: string): Result<WorkspaceFile, string> {
  if (path.length === 0) return err("The file path is empty.");
  if (path.length > FILE_PATH_MAX_CHARS) {
    return err(`The file path is ${path.length} characters; at most ${FILE_PATH_MAX_CHARS} are allowed.`);
  }
  const segments = path.split("/");
  for (const segment of segments) {
    if (segment === "")
      return err(`${describe(path)} has an empty segment (a leading, trailing or double /).`);
    if (segment === "." || segment === "..")
      return err(`${describe(path)} contains a "${segment}" segment; paths are never relative.`);
    if (!SEGMENT.test(segment)) {
      return err(
        `${describe(path)}: each segment uses letters, digits, "_", "-" and "." only, and does not start with ".".`,
      );
    }
  }
  const [folder, ...rest] = segments;
  const fileName = rest.at(-1);
  if ((folder !== "lib" && folder !== "plugins") || fileName === undefined) {
    return err(`${describe(path)} is not under lib/ or plugins/: use lib/<name>.ts or plugins/<name>.ts.`);
  }
  if (folder === "plugins" && rest.length !== 1) {
    return err(
      `${describe(path)}: plugins live directly in plugins/ (plugins/<name>.ts), not in subfolders.`,
    );
  }
  const match = FILE_NAME.exec(fileName);
  const name = match?.[1];
  const extension = match?.[2];
  if (name === undefined || (extension !== "ts" && extension !== "js")) {
    return err(`${describe(path)} must end in .ts or .js.`);
  }
  if (name.endsWith(".d")) return err(`${describe(path)} is a declaration file; it has no code to run.`);
  return ok({ path, kind: folder === "lib" ? "lib" : "plugin", name, language: extension });
}

/** The other spelling of a plugin (`.ts` ↔ `.js`): both would claim the same plugin name. */
export function pluginSibling(file: WorkspaceFile): string | null {
  if (file.kind !== "plugin") return null;
  return `plugins/${file.name}.${file.language === "ts" ? "js" : "ts"}`;
}
