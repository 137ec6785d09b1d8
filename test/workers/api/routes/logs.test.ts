// The workspace log list's tool filter: a tool's uid, or the name it was
// called by (the name the console shows; plugin tools have only a name).
import { describe, expect, it } from "vitest";
import type { RunView } from "../../../../shared/logs/query";
import { call, createKey, createWorkspace, json } from "../../../helpers/api";
import { record, runRecord } from "../../../shared/logs/harness";

const T0 = Date.UTC(2031, 4, 6, 10, 0, 0);

async function workspaceWithTools() {
  const ws = (await createWorkspace("log-tools")).uid;
  const reader = (await createKey(ws, ["hooks:read"], "rita")).key;
  const runs = [
    { toolUid: "tool_echo", toolName: "echo", requestId: "req_echo" },
    { toolUid: "tool_search", toolName: "search", requestId: "req_search" },
    { toolUid: null, toolName: "word_count", requestId: "req_plugin", kind: "plugin" as const },
  ];
  await record(
    runs.map((run, i) =>
      runRecord(ws, {
        ...run,
        at: new Date(T0 + i * 1000).toISOString(),
        target: run.toolUid === null ? "file:plugins/word-count.ts" : `tool:${run.toolUid}`,
      }),
    ),
  );
  return { ws, reader };
}

const requestIds = async (ws: string, key: string, tool: string) => {
  const page = await json<{ items: RunView[] }>(
    await call("GET", `/v1/workspaces/${ws}/hooks/logs?tool=${encodeURIComponent(tool)}`, { key }),
    200,
  );
  return page.items.map((r) => r.requestId);
};

describe("workspace logs ?tool=", () => {
  it("takes a tool's uid or its name, and a plugin tool's name", async () => {
    const { ws, reader } = await workspaceWithTools();
    expect(await requestIds(ws, reader, "tool_echo")).toEqual(["req_echo"]);
    expect(await requestIds(ws, reader, "echo")).toEqual(["req_echo"]);
    expect(await requestIds(ws, reader, "search")).toEqual(["req_search"]);
    expect(await requestIds(ws, reader, "word_count")).toEqual(["req_plugin"]);
    expect(await requestIds(ws, reader, "nothing")).toEqual([]);
  });
});
