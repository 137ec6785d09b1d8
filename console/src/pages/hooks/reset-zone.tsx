// Reset removes the draft, every version and revision (a reset event remains): admins only, and
// only after typing the target's name.
import { useState } from "preact/hooks";
import { jsonOf } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { formatBytes } from "../../components/format";
import type { HookStore } from "./store";
import { clearUnsaved } from "./unsaved";

/** The target's name as a file name: a file path's slashes and other separators become dashes. */
const exportFileName = (name: string) => name.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "hook";

export function ResetZone({ store }: { store: HookStore }) {
  const [typed, setTyped] = useState("");
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [done, setDone] = useState("");
  const name = store.target.name;
  const matches = typed === name;

  const reset = async () => {
    setDone("");
    const answer = await jsonOf(store.lifecycle.reset.$post());
    clearUnsaved(store.target.storageKey);
    store.state.value = null;
    store.runs.value = [];
    store.compileReport.value = null;
    setTyped("");
    setDone(
      `Reset: ${answer.event.versionsRemoved} versions and ${answer.event.revisionsRemoved} revisions removed, ${formatBytes(answer.released.draftHistoryBytes + answer.released.deployedCodeBytes)} released.`,
    );
    await Promise.all([store.refreshDeployments(), store.loadVersions()]);
  };

  return (
    <section class="card stack danger-zone" aria-labelledby="reset-heading">
      <h2 id="reset-heading">Reset</h2>
      <p>
        Removes the draft, every version and every revision, and stops serving this{" "}
        {store.target.kind === "tool" ? "hook" : "file"}. A reset event stays in the history. This cannot be
        undone.
      </p>
      <p>
        {/* A plain link: the export is a GET the session cookie authorizes, and the browser saves it. */}
        <a
          class="btn"
          href={`${store.target.base}/export`}
          download={`${exportFileName(name)}-versions.json`}
        >
          Export versions
        </a>{" "}
        <span class="hint">
          Every version's source and config as one JSON file: keep it before you reset.
        </span>
      </p>
      <label>
        <span>
          Type <code>{name}</code> to confirm
        </span>
        <input
          type="text"
          value={typed}
          autocomplete="off"
          spellcheck={false}
          aria-describedby="reset-help"
          onInput={(e) => setTyped(e.currentTarget.value)}
        />
        <span id="reset-help" class="hint">
          The Reset button is enabled once the name matches exactly.
        </span>
      </label>
      <div class="row">
        <BusyButton
          kind="danger"
          busyLabel="Resetting…"
          onProblem={setProblem}
          onClick={reset}
          disabled={!matches}
        >
          Reset {store.target.kind === "tool" ? "hook" : "file"}
        </BusyButton>
      </div>
      <ProblemView problem={problem} id="reset-problem" />
      {done && (
        <p class="notice notice-ok" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
