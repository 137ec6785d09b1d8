// server-everything registered as the one service of a fresh workspace, over
// the public API, and a key that can only call tools (what an agent holds).
import { api, BENCH_RATE_LIMITS } from "../gateway-setup";

export interface EverythingWorkspace {
  uid: string;
  callKey: string;
  /** Public name by upstream name, as the service's refresh indexed them. */
  publicNames: Map<string, string>;
}

interface IndexedTool {
  uid: string;
  name: string | null;
  upstreamName: string;
  reviewState: string;
  pendingHash: string | null;
}

export async function registerEverything(
  url: string,
  bootstrap: string,
  upstreamUrl: string,
): Promise<EverythingWorkspace> {
  const { data: ws } = await api(url, bootstrap, "POST", "/v1/workspaces", { name: "compare-everything" });
  const base = `/v1/workspaces/${String(ws.uid)}`;
  const { data: admin } = await api(url, bootstrap, "POST", `${base}/keys`, {
    scopes: ["admin", "hooks:read", "hooks:write"],
    actor: "compare-everything",
  });
  const adminKey = String(admin.key);
  // The default per-key rate is not what is compared here.
  const { headers } = await api(url, adminKey, "GET", `${base}/config`);
  await api(url, adminKey, "PUT", `${base}/config`, BENCH_RATE_LIMITS, {
    "if-match": headers.get("etag") ?? "",
  });
  const { data: service } = await api(url, adminKey, "POST", `${base}/services`, {
    name: "everything",
    url: upstreamUrl,
    payloadCapture: false,
  });
  const { data: refreshed } = await api(
    url,
    adminKey,
    "POST",
    `${base}/services/${String(service.uid)}/refresh`,
  );
  const tools = refreshed.tools as IndexedTool[];
  // A first refresh accepts every tool on arrival; were one to need review, it is accepted as listed.
  for (const tool of tools.filter((t) => t.reviewState === "review_required")) {
    await api(url, adminKey, "POST", `${base}/tools/${tool.uid}/review/accept`, {
      definitionHash: tool.pendingHash,
    });
  }
  const { data: caller } = await api(url, adminKey, "POST", `${base}/keys`, {
    scopes: ["tools:call"],
    actor: "compare-everything-client",
  });
  return {
    uid: String(ws.uid),
    callKey: String(caller.key),
    publicNames: new Map(tools.map((t) => [t.upstreamName, t.name ?? t.upstreamName])),
  };
}
