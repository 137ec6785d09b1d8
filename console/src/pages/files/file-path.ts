// The API's own workspace-file path rules, checked as the person types, so the New file form explains a
// refusal before the API would (with the same sentence).
import { parseFilePath } from "../../../../shared/files/paths";

/** Why `path` names no workspace file, or null when it does. */
export function filePathProblem(path: string): string | null {
  if (path.length === 0) return "Enter a path such as lib/request-policy.ts or plugins/redact.ts.";
  const parsed = parseFilePath(path);
  return parsed.ok ? null : parsed.error;
}

/** The client URL of a file's page: the path is one URL-encoded segment, like the API's. */
export const filePageHref = (ws: string, path: string) => `/w/${ws}/files/${encodeURIComponent(path)}`;
