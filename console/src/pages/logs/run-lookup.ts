// Finding one run by id, and the active run a shadow run is compared with. The API lists runs newest
// first with `cursor` as an exclusive upper bound on the id, so the id right after a run's id, as a
// cursor with limit 1, answers exactly that run (ids: "log_" + 22 Crockford base32 characters).
import { api, wsPath } from "../../api/client";
import type { Run, RunPage } from "./types";

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
  const page = await api.get<RunPage>(
    `${wsPath(ws, "hooks", "logs")}?limit=1&cursor=${encodeURIComponent(cursor)}`,
    signal,
  );
  const run = page.items[0];
  return run?.id === id ? run : null;
}

/** The active channel's run of the same request, stage and hook: what the shadow run is compared with. */
export async function activeCounterpart(ws: string, shadow: Run, signal: AbortSignal): Promise<Run | null> {
  const params = new URLSearchParams({
    requestId: shadow.requestId,
    stage: shadow.stage,
    channel: "active",
    target: shadow.target,
    limit: "5",
  });
  const page = await api.get<RunPage>(`${wsPath(ws, "hooks", "logs")}?${params}`, signal);
  return page.items[0] ?? null;
}
