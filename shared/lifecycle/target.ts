// A lifecycle target names one piece of workspace source with its own draft,
// versions and deployment pointers. Tool adapters are `tool:<toolUid>`;
// workspace files are `file:<path>` and reuse everything unchanged.

export type Target = `tool:${string}` | `file:${string}`;

export const toolTarget = (toolUid: string): Target => `tool:${toolUid}`;
export const FILE_TARGET_PREFIX = "file:";
export const fileTarget = (path: string): Target => `${FILE_TARGET_PREFIX}${path}`;

export const isTarget = (value: string): value is Target =>
  /^(tool|file):.+$/s.test(value) && value.length <= 512;
