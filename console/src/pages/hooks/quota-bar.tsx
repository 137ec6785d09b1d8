// What is left of this hour's quotas (the workspace's draft saves, the user's compilations).
import { ProblemView } from "../../components/problem-view";
import { formatClock } from "../../components/format";
import type { HookStore } from "./store";
import type { Quota } from "./types";

function Meter({ label, quota }: { label: string; quota: Quota }) {
  const low = quota.remaining <= Math.max(1, Math.floor(quota.limit / 10));
  return (
    <span class={`quota ${low ? "quota-low" : ""}`} title={`${quota.used} used of ${quota.limit}`}>
      {label}: <strong>{quota.remaining}</strong>/{quota.limit} left
      <meter min={0} max={quota.limit} value={quota.remaining} aria-label={`${label} left this hour`} />
    </span>
  );
}

export function QuotaBar({ store }: { store: HookStore }) {
  const quotas = store.quotas.value;
  if (store.quotasProblem.value && store.quotasProblem.value.status !== 404) {
    return <ProblemView problem={store.quotasProblem.value} />;
  }
  if (!quotas) return null;
  const reset = [quotas.saves.resetAt, quotas.compilations.resetAt].toSorted()[0] ?? quotas.saves.resetAt;
  return (
    <div class="quota-bar" aria-label="Quotas this hour" role="group">
      <Meter label="Saves" quota={quotas.saves} />
      <Meter label="Compilations" quota={quotas.compilations} />
      <span class="muted">resets at {formatClock(reset)}</span>
    </div>
  );
}
