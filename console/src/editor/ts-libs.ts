// The ES lib declarations the hook's TypeScript environment needs, bundled into the worker chunk:
// hooks run in a sandbox with the ES2023 library and no DOM, and nothing is fetched at run time.
const files = import.meta.glob<string>(
  [
    "../../../node_modules/typescript-browser/lib/lib.es5.d.ts",
    "../../../node_modules/typescript-browser/lib/lib.es20{15,16,17,18,19,20,21,22,23}*.d.ts",
    "../../../node_modules/typescript-browser/lib/lib.decorators*.d.ts",
    "!**/*.full.d.ts",
  ],
  { query: "?raw", import: "default", eager: true },
);

/** `/lib.<name>.d.ts` → text, where @typescript/vfs's system looks for default libs. */
export function libFiles(): Map<string, string> {
  const map = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    const name = path.slice(path.lastIndexOf("/"));
    map.set(name, text);
  }
  return map;
}
