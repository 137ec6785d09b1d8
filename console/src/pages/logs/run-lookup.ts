// Finding one run by id, and the active run a shadow run is compared with. The API lists runs newest
// first with `cursor` as an exclusive upper bound on the id, so the id right after a run's id, as a
// cursor with limit 1, answers exactly that run (ids: "log_" + 22 Crockford base32 characters).
import { api, cancelledBy, params } from "../../api/client";
import { ProblemError } from "../../api/problem";
import type { Run, RunPage, RunQuery } from "./types";

/** The route types both of its formats; the console asks for JSON (its `accept`), never NDJSON. */
const isRunPage = (page: unknown): page is RunPage =>
  typeof page === "object" && page !== null && "items" in page && Array.isArray(page.items);

/** A page of runs, the newest first. */
export async function runPage(ws: string, query: RunQuery, signal?: AbortSignal): Promise<RunPage> {
  const logs = api.v1.workspaces[":ws"].hooks.logs;
  const page: unknown = await (await logs.$get({ ...params({ ws }), query }, cancelledBy(signal))).json();
  if (isRunPage(page)) return page;
  throw new ProblemError(0, "unexpected_answer", "The logs answer is not a page of runs", "", [], {});
}

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** The smallest id of the same length greater than `id`, or null at the very end of the alphabet. */
export function nextRunId(id: string): string | null {
  const underscore = id.indexOf("_");
  const prefix = id.slice(0, underscore + 1);
  const chars = id.slice(underscore + 1).split("");
  for (let i = chars.length - 1; i >= 0; i--) {
    const index = ALPHABET.indexOf(chars[i] ?? "");
    if (index < 0) return null;
    if (index < ALPHABET.length - 1) {
      chars[i] = ALPHABET[index + 1] ?? "";
      return prefix + chars.join("");
    }
    chars[i] = ALPHABET[0] ?? "0";
  }
  return null;
}

export async function findRun(ws: string, id: string, signal: AbortSignal): Promise<Run | null> {
  const cursor = nextRunId(id);
  if (cursor === null) return null;
  const page = await runPage(ws, { limit: "1", cursor }, signal);
  const run = page.items[0];
  return run?.id === id ? run : null;
}

/**
 * What the active channel did for the request a shadow run belongs to: its run of the same stage and
 * hook (what the shadow run is compared with), and the hook's other active runs of the request. No
 * active run of the stage means no active hook ran it, as runs are recorded only for a stage a hook
 * defines; a request's records are written and expire together.
 */
export interface ActiveSide {
  run: Run | null;
  /** The hook's active runs of the request at other stages (the active revision has those stages). */
  others: Run[];
}

export async function activeCounterpart(ws: string, shadow: Run, signal: AbortSignal): Promise<ActiveSide> {
  const query = {
    requestId: shadow.requestId,
    channel: "active",
    target: shadow.target,
    limit: "20",
  };
  const page = await runPage(ws, query, signal);
  const ofRequest = page.items.filter((run) => run.requestId === shadow.requestId);
  return {
    run: ofRequest.find((run) => run.stage === shadow.stage) ?? null,
    others: ofRequest.filter((run) => run.stage !== shadow.stage),
  };
}
