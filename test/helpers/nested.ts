/** `{ a: { a: … {} } }`, nesting `depth` objects (1 is `{}`). */
export function nestedObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

/** The same as JSON text, built without recursion so any depth can be sent. */
export const nestedJsonText = (depth: number): string =>
  `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
