// Types of old-node.mjs.
export const REPO: string;
export function findNode20(): string;
export function oldNodePath(node: string): string;
export function runWith(
  file: string,
  args: readonly string[],
  path: string,
  env?: Record<string, string>,
): { status: number | null; stdout: string; stderr: string };
