// Setup that CLI tests do not exercise goes straight to the API of the shared dev server.
import { expect, inject } from "vitest";

// oxlint-disable-next-line typescript/no-unnecessary-type-parameters -- the caller names the JSON shape
export async function api<T = Record<string, unknown>>(
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ data: T; headers: Headers }> {
  const url = `${inject("serverUrl")}${path}`;
  const init = {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
  // The dev server drops idle keep-alive connections; a request sent on one as it closes never arrived.
  const res = await fetch(url, init).catch(async (error: unknown) => {
    if (!(error instanceof TypeError)) throw error;
    return fetch(url, init);
  });
  const text = await res.text();
  expect(res.ok, `${method} ${path}: ${res.status} ${text}`).toBe(true);
  return { data: (text ? JSON.parse(text) : null) as T, headers: res.headers };
}

/** The echo tool's adapter that holds a call for approval when its text starts with `approve:`. */
export const HOLDING_ECHO = `export default defineToolAdapter({
  apiVersion: "rayrun.hooks/v1",
  before({ arguments: a }) {
    const text = String(a.text);
    if (text.startsWith("approve:")) return { action: "approval", arguments: { text: text.slice(8) }, reason: "Echoing needs a human" };
    return { action: "continue", arguments: { text } };
  },
});
`;
