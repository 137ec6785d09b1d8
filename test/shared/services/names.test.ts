import { describe, expect, it } from "vitest";
import { publicToolNames } from "../../../shared/services/names";
import { createWorkspace } from "../../helpers/api";
import {
  byName,
  call,
  createService,
  listTools,
  newUpstream,
  refresh,
  type ToolBody,
} from "../../workers/api/services/harness";

const publicNames = (tools: readonly ToolBody[]) => tools.map((t) => String(t.name)).toSorted();

describe("public tool names", () => {
  it("a name two services share becomes {service}__{tool} for both, and plain again when one goes", async () => {
    const ws = (await createWorkspace()).uid;
    const docs = await createService(ws, { name: "docs", url: newUpstream().url });
    const notes = await createService(ws, { name: "notes", url: newUpstream().url });
    await refresh(ws, docs.uid);
    expect(publicNames(await listTools(ws))).toEqual(["always_fails", "echo", "search_release_notes"]);

    // The second service exposes the same three names: every one of them is prefixed, on both services.
    const summary = await refresh(ws, notes.uid);
    expect(publicNames(summary.tools)).toEqual([
      "notes__always_fails",
      "notes__echo",
      "notes__search_release_notes",
    ]);
    const tools = await listTools(ws);
    expect(publicNames(tools)).toEqual([
      "docs__always_fails",
      "docs__echo",
      "docs__search_release_notes",
      "notes__always_fails",
      "notes__echo",
      "notes__search_release_notes",
    ]);
    expect(new Set(tools.map((t) => t.connectionId))).toEqual(new Set([docs.uid, notes.uid]));

    // Deleting one service makes the other's names plain again.
    const res = await call("DELETE", `/v1/workspaces/${ws}/services/${notes.uid}`);
    expect(res.status).toBe(200);
    expect(publicNames(await listTools(ws))).toEqual(["always_fails", "echo", "search_release_notes"]);
  });

  it("only the shared names are prefixed; removed tools free their name", async () => {
    const ws = (await createWorkspace()).uid;
    const a = newUpstream();
    const b = newUpstream();
    await b.hide(["always_fails", "search_release_notes"]);
    const alpha = await createService(ws, { name: "alpha", url: a.url });
    const beta = await createService(ws, { name: "beta", url: b.url });
    await refresh(ws, alpha.uid);
    await refresh(ws, beta.uid);
    const names = publicNames(await listTools(ws));
    expect(names).toEqual(["alpha__echo", "always_fails", "beta__echo", "search_release_notes"]);

    // beta's echo disappears upstream: alpha's echo is the only one again.
    await b.hide(["always_fails", "search_release_notes", "echo"]);
    await refresh(ws, beta.uid);
    const after = byName(await listTools(ws, `service=${alpha.uid}`));
    expect(after.echo?.name).toBe("echo");
  });
});

const tool = (uid: string, serviceName: string, upstreamName: string) => ({
  uid,
  serviceName,
  upstreamName,
});

describe("publicToolNames", () => {
  it("keeps unique names and prefixes shared ones", () => {
    const names = publicToolNames([tool("1", "a", "x"), tool("2", "b", "x"), tool("3", "b", "y")]);
    expect(Object.fromEntries(names)).toEqual({ "1": "a__x", "2": "b__x", "3": "y" });
  });

  it("prefixes a plain name that equals another tool's prefixed name, until all names differ", () => {
    const names = publicToolNames([
      tool("1", "a", "x"),
      tool("2", "b", "x"),
      // Literally named like a's prefixed tool.
      tool("3", "c", "a__x"),
    ]);
    expect(Object.fromEntries(names)).toEqual({ "1": "a__x", "2": "b__x", "3": "c__a__x" });
    expect(new Set(names.values()).size).toBe(3);
  });

  it("gives every tool a distinct name", () => {
    const services = ["a", "b", "a-b", "c1"];
    const upstream = ["x", "y", "a__x", "b__y", "x__y", "b__x"];
    const tools = services.flatMap((s) => upstream.map((u) => tool(`${s}/${u}`, s, u)));
    const names = publicToolNames(tools);
    expect(new Set(names.values()).size).toBe(tools.length);
  });
});
