// Each tool's hook status from its lifecycle (`GET …/tools/{tool}/hook`: draft and deployment
// pointers). One request per tool, so only tools with stored hook versions are asked, a few at a time.
import { useEffect, useState } from "preact/hooks";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { HookState } from "../hooks/types";

export type HookStatus = "none" | "draft" | "shadow" | "active" | "active+shadow" | "unknown";

type HookAnswer = Pick<HookState, "deployments"> & { draft: Pick<HookState["draft"], "version"> };

/** At most this many hook reads in flight: the page stays quick without flooding the API. */
const PARALLEL = 4;

export function statusOf(answer: HookAnswer): HookStatus {
  const { active, shadow } = answer.deployments;
  if (active && shadow) return "active+shadow";
  if (active) return "active";
  if (shadow) return "shadow";
  return answer.draft.version > 0 ? "draft" : "none";
}

async function eachBounded<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Statuses by tool uid; tools without hook history are "none" without a request. */
export function useHookStatuses(
  ws: string,
  tools: { uid: string; hasHookHistory: boolean }[] | undefined,
): Map<string, HookStatus> {
  const [statuses, setStatuses] = useState(new Map<string, HookStatus>());
  const key = tools?.map((t) => `${t.uid}:${t.hasHookHistory}`).join(",") ?? null;
  useEffect(() => {
    if (!tools) return undefined;
    const abort = new AbortController();
    const found = new Map<string, HookStatus>();
    for (const tool of tools) if (!tool.hasHookHistory) found.set(tool.uid, "none");
    setStatuses(new Map(found));
    const asked = tools.filter((tool) => tool.hasHookHistory);
    void eachBounded(asked, PARALLEL, async (tool) => {
      if (abort.signal.aborted) return;
      let status: HookStatus = "unknown";
      try {
        const hook = api.v1.workspaces[":ws"].tools[":tool"].hook;
        status = statusOf(await jsonOf(hook.$get(params({ ws, tool: tool.uid }), cancelledBy(abort.signal))));
      } catch {
        // The badge says "unknown"; the tool's own page shows why.
      }
      if (abort.signal.aborted) return;
      found.set(tool.uid, status);
      setStatuses(new Map(found));
    });
    return () => abort.abort();
  }, [ws, key]);
  return statuses;
}
