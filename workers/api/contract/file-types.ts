// The `.d.ts` the editor loads beside a workspace file: for `lib/…` the
// request-hook API, for `plugins/…` the plugin module's shape, both with the
// common part (JSON, the neutral request, the `rayrun` global). Like the tool
// adapters' (types.ts) it is a global script (no import/export), so the file
// needs no import: `export default { … } satisfies RayrunPlugin` just works.
// The text depends only on the file's kind.
import { parseFilePath, type FileKind } from "../../../shared/files/paths";
import { err, ok, type Result } from "../../../shared/result";
import { COMMON_TYPES } from "./file-types-common";
import { LIB_TYPES } from "./file-types-lib";
import { PLUGIN_TYPES } from "./file-types-plugin";

const HEADERS: Record<FileKind, string> = {
  lib: "// Declarations for workspace files under lib/: request hooks, the functions they call, and the `rayrun` global.",
  plugin:
    "// Declarations for workspace files under plugins/: the plugin's hooks, their payloads, and the `rayrun` global.",
};

const OWN: Record<FileKind, string> = { lib: LIB_TYPES, plugin: PLUGIN_TYPES };

/** The declarations for a file of `kind`, as `.d.ts` text. */
export function fileKindTypes(kind: FileKind): string {
  return `${HEADERS[kind]}\n// Hover a name for its contract.\n\n${COMMON_TYPES}\n\n${OWN[kind]}\n`;
}

/** The declarations for the workspace file at `path`, or why `path` names none (parseFilePath's sentence). */
export function generateFileTypes(path: string): Result<string, string> {
  const file = parseFilePath(path);
  return file.ok ? ok(fileKindTypes(file.value.kind)) : err(file.error);
}
