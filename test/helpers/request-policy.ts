// One request-hook file for the LLM route tests (prepare and proxy): the
// first request-hook example as written plus a system reminder (`transform`), and
// exports that fail in each documented way: `explode` throws, `wrapped`
// returns the input instead of a request, `unpair` drops the tool results
// (breaking tool-use/tool-result pairing).
export const POLICY_PATH = "lib/request-policy.ts";
export const REMINDER = "Reminder: only read and write files in the workspace.";

export const POLICY = `
const REMINDER = ${JSON.stringify(REMINDER)};

export function transform({ request }) {
  return {
    ...request,
    system: request.system ? request.system + "\\n\\n" + REMINDER : REMINDER,
    tools: request.tools.filter((tool) =>
      tool.name === 'fs_read' || tool.name === 'fs_write'
    ),
  }
}

export function explode() {
  throw new Error("the policy store is down");
}

export function wrapped({ request, loop }) {
  return { request, loop };
}

export function unpair({ request }) {
  return {
    ...request,
    messages: request.messages.filter(
      (m) => typeof m.content === "string" || !m.content.some((b) => b.type === "tool_result"),
    ),
  };
}
`;
