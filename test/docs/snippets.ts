/// <reference types="vite/types/importMeta.d.ts" />
// The tutorials' code blocks and the files they show. Each block a reader can
// copy as a hook is a real file under docs/snippets/<doc>/, named by the marker
// line `<!-- snippet: <doc>/<name> -->` right before it (the formatter puts one
// blank line between the two), so the tests below compile and run exactly what
// the docs show.

/** The docs whose code blocks are files. */
export const DOCS = ["adapters", "request-hooks", "plugins"] as const;
export type Doc = (typeof DOCS)[number];

const docFiles = import.meta.glob<string>("../../docs/{adapters,request-hooks,plugins}.md", {
  query: "?raw",
  import: "default",
  eager: true,
});
const snippetFiles = import.meta.glob<string>("../../docs/snippets/**/*", {
  query: "?raw",
  import: "default",
  eager: true,
});

const SNIPPETS_DIR = "../../docs/snippets/";

/** Every file under docs/snippets, by its path there (`adapters/search.ts`). */
export const SNIPPETS: ReadonlyMap<string, string> = new Map(
  Object.entries(snippetFiles).map(([path, text]) => [path.slice(SNIPPETS_DIR.length), text]),
);

export function docText(doc: Doc): string {
  const text = docFiles[`../../docs/${doc}.md`];
  if (text === undefined) throw new Error(`docs/${doc}.md is missing`);
  return text;
}

/** The text of `docs/snippets/<path>`. */
export function snippet(path: string): string {
  const text = SNIPPETS.get(path);
  if (text === undefined) throw new Error(`docs/snippets/${path} is missing`);
  return text;
}

/** `docs/snippets/<path>` parsed as JSON. */
export const snippetJson = (path: string): unknown => JSON.parse(snippet(path));

/** `docs/snippets/<path>`, a JSON object (a config); throws for any other JSON. */
export function snippetObject(path: string): Record<string, unknown> {
  const value = snippetJson(path);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error(`docs/snippets/${path} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Languages whose blocks are hook code: each must be a marked snippet. */
export const CODE_LANGUAGES = new Set(["ts", "typescript", "tsx", "js", "javascript", "jsx", "mjs"]);

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`ts`, `json`, `sh`, or "" for none). */
  language: string;
  /** Spaces before the opening fence. */
  indent: number;
  /** The lines between the fences, joined with "\n". */
  body: string;
  /** The snippet path of the marker line before it, or null when it has none. */
  marker: string | null;
}

const FENCE = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^<!-- snippet: (\S+) -->$/;

/** Every fenced block of a markdown text, with the marker that precedes it. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, spaces = "", fence = "", language = ""] = open;
    let previous = i - 1;
    while (previous >= 0 && lines[previous]?.trim() === "") previous--;
    const marker = MARKER.exec(lines[previous] ?? "")?.[1] ?? null;
    const close = new RegExp(`^ *\\${fence[0]}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !close.test(lines[j] ?? ""); j++) {
      const line = lines[j] ?? "";
      body.push(line.startsWith(spaces) ? line.slice(spaces.length) : line);
    }
    blocks.push({ line: i + 1, language, indent: spaces.length, body: body.join("\n"), marker });
    i = j;
  }
  return blocks;
}

/** Every marker line of a markdown text, with its 1-based line. */
export function markers(markdown: string): { line: number; path: string }[] {
  return markdown.split("\n").flatMap((text, i) => {
    const path = MARKER.exec(text)?.[1];
    return path === undefined ? [] : [{ line: i + 1, path }];
  });
}

/** The part of a doc under `heading` (a line starting with `## `), up to the next heading of that level. */
export function section(doc: Doc, heading: string): string {
  const text = docText(doc);
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/${doc}.md has no "${heading}"`);
  const level = heading.slice(0, heading.indexOf(" ") + 1);
  const end = text.indexOf(`\n${level}`, start + heading.length + 2);
  return end === -1 ? text.slice(start) : text.slice(start, end);
}

/** The first column of a markdown table's rows whose first cell is one `code` span, in order. */
export function tableCodes(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `([^`]+)` +\|/gm)].map(([, code = ""]) => code);
}

/** The cells of table rows whose first cell is one `code` span; that cell without its backticks. */
export function tableRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => /^\| `[^`]+` +\|/.test(line))
    .map((line) =>
      line
        .slice(1, line.endsWith("|") ? -1 : undefined)
        .split("|")
        .map((cell, i) => (i === 0 ? cell.trim().slice(1, -1) : cell.trim())),
    );
}
