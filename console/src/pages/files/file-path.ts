// The workspace file path rules of shared/files/paths.ts, checked as the person types, so the
// New file form explains a refusal before the API would.

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const FILE_NAME = /^(.+)\.(ts|js)$/;
export const FILE_PATH_MAX_CHARS = 200;

/** Why `path` names no workspace file, or null when it does. */
export function filePathProblem(path: string): string | null {
  if (path.length === 0) return "Enter a path such as lib/request-policy.ts or plugins/redact.ts.";
  if (path.length > FILE_PATH_MAX_CHARS)
    return `At most ${FILE_PATH_MAX_CHARS} characters (this is ${path.length}).`;
  const segments = path.split("/");
  for (const segment of segments) {
    if (segment === "") return "No empty segments: no leading, trailing or double /.";
    if (segment === "." || segment === "..") return "Paths are never relative: no . or .. segments.";
    if (!SEGMENT.test(segment))
      return 'Each segment uses letters, digits, "_", "-" and "." only, and does not start with ".".';
  }
  const [folder, ...rest] = segments;
  const fileName = rest.at(-1);
  if ((folder !== "lib" && folder !== "plugins") || fileName === undefined) {
    return "Files live under lib/ or plugins/: lib/<name>.ts or plugins/<name>.ts.";
  }
  if (folder === "plugins" && rest.length !== 1)
    return "Plugins live directly in plugins/ (plugins/<name>.ts), not in subfolders.";
  const match = FILE_NAME.exec(fileName);
  if (!match?.[1]) return "The file name ends in .ts or .js.";
  if (match[1].endsWith(".d")) return "Declaration files (.d.ts) have no code to run.";
  return null;
}

/** The client URL of a file's page: the path is one URL-encoded segment, like the API's. */
export const filePageHref = (ws: string, path: string) => `/w/${ws}/files/${encodeURIComponent(path)}`;
