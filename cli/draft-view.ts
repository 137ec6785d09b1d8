// How a target's draft reads in a terminal: `show`'s summary and what `save`
// reports (the version, whether the API reformatted the source, and where a
// saved draft does not compile).
import type { InferResponseType } from "hono/client";
import type { CliError, lifecycleClient, SourceDiagnostic } from "./client.ts";
import { diagnosticLine, keyValue, type Output } from "./output.ts";

/** The lifecycle routes under a target's base path. */
export type Lifecycle = ReturnType<typeof lifecycleClient>;
/** The answer to `GET {base}`: the draft and the deployments. */
type TargetState = InferResponseType<Lifecycle["index"]["$get"], 200>;
/** The answer to `PUT {base}/draft`. */
type SavedDraft = InferResponseType<Lifecycle["draft"]["$put"], 200>;
type Pointer = TargetState["deployments"]["active"];

const pointer = (p: Pointer): string => (p ? `${p.revisionId} (since ${p.setAt})` : "-");

/** `show`: the draft's metadata and deployments, then its source. */
export function draftSummary(data: TargetState): string {
  const { draft, deployments } = data;
  const head = keyValue([
    ["version", draft.version === 0 ? "0 (nothing saved yet)" : draft.version],
    ...(draft.updatedAt === null
      ? []
      : [["saved", `${draft.updatedAt} by ${String(draft.actor)} via ${String(draft.channel)}`] as const]),
    ...(draft.note ? [["note", draft.note] as const] : []),
    ["config", JSON.stringify(draft.config)],
    ["active", pointer(deployments.active)],
    ["shadow", pointer(deployments.shadow)],
  ]);
  return draft.source === "" ? head : `${head}\n\n${draft.source.trimEnd()}`;
}

export interface SaveOutcome {
  /** The local file the source came from, and the source as sent. */
  file: string;
  sent: string;
  saved: SavedDraft;
  /** Where the saved draft does not compile; undefined when it was not checked. */
  diagnostics: readonly SourceDiagnostic[] | undefined;
  /** Why it could not be checked (a compile quota, say). */
  unchecked: CliError | undefined;
}

/** `save`: the new version (stdout) and, on stderr, the compile problems the draft was saved with. */
export function saveReport(out: Output, outcome: SaveOutcome): void {
  const { saved, sent, file, diagnostics, unchecked } = outcome;
  const reformatted = saved.draft.source !== sent;
  out.print({ ...saved, reformatted, ...(diagnostics === undefined ? {} : { diagnostics }) }, () => {
    if (saved.noop) {
      return reformatted
        ? "No change (identical to the draft once formatted)"
        : "No change (identical to the draft)";
    }
    const note = reformatted ? ` (formatted by the API with Prettier, so it differs from ${file})` : "";
    return `Saved version ${saved.version}${note}`;
  });
  if (diagnostics !== undefined && diagnostics.length > 0) {
    out.warn([
      `warning: version ${saved.version} does not compile (saved anyway; fix it before testing or deploying):`,
      ...diagnostics.map((d) => `  ${file}:${diagnosticLine(d)}`),
    ]);
  }
  if (unchecked) {
    out.warn([
      `warning: could not check that version ${saved.version} compiles: ${unchecked.code}: ${unchecked.message}`,
    ]);
  }
}
