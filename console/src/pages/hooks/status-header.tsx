// The hook's state at a glance: the draft version, what serves as active and shadow, unsaved edits.
import type { HookStore } from "./store";
import { shortId } from "../../components/format";

export function StatusBadges({ store }: { store: HookStore }) {
  const state = store.state.value;
  if (state === null) return null;
  const versionOf = (id: string) => store.revisions.value?.find((r) => r.id === id)?.version;
  const pointer = (channel: "active" | "shadow") => {
    const p = state.deployments[channel];
    if (p === null) return <span class="badge">{channel === "active" ? "Not active" : "No shadow"}</span>;
    const v = versionOf(p.revisionId);
    return (
      <span
        class={`badge badge-${channel}`}
        title={`Revision ${p.revisionId}`}
        data-testid={`${channel}-badge`}
      >
        {channel === "active" ? "Active" : "Shadow"}: {v === undefined ? shortId(p.revisionId) : `v${v}`}
      </span>
    );
  };
  return (
    <div class="hook-status" role="status" aria-label="Hook status">
      <span class="badge badge-draft" data-testid="draft-badge">
        {state.draft.version === 0 ? "No draft" : `Draft v${state.draft.version}`}
      </span>
      {pointer("active")}
      {pointer("shadow")}
      {store.dirty.value && <span class="badge badge-warn">Unsaved changes</span>}
    </div>
  );
}
