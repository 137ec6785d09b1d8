// The retrieval lambda of the "Fast RAG with an existing lambda" example (docs/request-hooks.md):
// `enrichMessages({ messages, loop })` looks the last user message up in a
// small approved index and returns `{ messages }` with the retrieved context
// prepended to that message. Deterministic (no clock, no randomness), so a
// test can predict exactly what the provider receives. `npm start` deploys it
// as lib/fast-rag.ts; lib/fast-rag-hook.ts (dev/examples/fast-rag-hook.ts)
// calls it through `rayrun.lambda`. Workspace source compiled by Rayrun (no
// imports), not part of any Worker.

type TextBlock = { type: "text"; text: string };
type Block = TextBlock | { type: "tool_use" | "tool_result"; [key: string]: unknown };
type Message = { role: "user" | "assistant"; content: string | Block[] };

/** The approved index: what retrieval may return, and the words that find it. */
const INDEX = [
  {
    id: "office-hours",
    text: "The office opens at 9:00 and closes at 17:30, Monday to Friday.",
    keywords: ["office", "open", "opens", "hours", "close", "closes"],
  },
  {
    id: "file-policy",
    text: "Agents may only read and write files inside the workspace folder.",
    keywords: ["file", "files", "read", "write", "workspace", "folder"],
  },
  {
    id: "release-cadence",
    text: "Releases ship every second Tuesday; hotfixes ship when needed.",
    keywords: ["release", "releases", "ship", "hotfix", "tuesday"],
  },
];

const MAX_DOCUMENTS = 2;

const textOf = (content: Message["content"]): string =>
  typeof content === "string"
    ? content
    : content
        .filter((block): block is TextBlock => block.type === "text")
        .map((block) => block.text)
        .join(" ");

/** The best-matching documents for `query`: most keyword hits first, index order on ties. */
function retrieve(query: string) {
  const words = new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return INDEX.map((doc, order) => ({ doc, order, hits: doc.keywords.filter((k) => words.has(k)).length }))
    .filter((scored) => scored.hits > 0)
    .toSorted((a, b) => b.hits - a.hits || a.order - b.order)
    .slice(0, MAX_DOCUMENTS)
    .map((scored) => scored.doc);
}

export function enrichMessages({ messages, loop }: { messages: Message[]; loop: string }) {
  const last = messages.findLast((message) => message.role === "user");
  if (last === undefined) return { messages };
  const found = retrieve(textOf(last.content));
  const context = [
    `Retrieved context (loop ${loop}):`,
    ...(found.length === 0 ? ["(no matching documents)"] : found.map((doc) => `- [${doc.id}] ${doc.text}`)),
  ].join("\n");
  // Text goes before the message's own text but after any tool results, which lead a user turn.
  const content: Message["content"] =
    typeof last.content === "string"
      ? `${context}\n\n${last.content}`
      : [
          ...last.content.filter((block) => block.type === "tool_result"),
          { type: "text", text: context },
          ...last.content.filter((block) => block.type !== "tool_result"),
        ];
  return { messages: messages.map((message) => (message === last ? { ...message, content } : message)) };
}
