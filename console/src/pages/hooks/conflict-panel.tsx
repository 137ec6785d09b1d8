// A save refused with 412: someone saved a newer draft. Their version beside the edits, and the
// two ways on: take theirs, or save the edits on top of theirs (with the new ETag).
import { useState } from "preact/hooks";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { LazyDiffView } from "../../editor/lazy";
import { formatTime } from "../../components/format";
import type { HookStore } from "./store";

export function ConflictPanel({ store, note }: { store: HookStore; note: string }) {
  const conflict = store.conflict.value;
  const [problem, setProblem] = useState<ProblemError | null>(null);
  if (!conflict) return null;
  const { theirs } = conflict;
  return (
    <section class="card conflict" aria-labelledby="conflict-heading">
      <h2 id="conflict-heading">Someone saved a newer draft</h2>
      <p>
        Version {theirs.version} was saved by <strong>{theirs.actor ?? "someone"}</strong>
        {theirs.channel ? ` (${theirs.channel})` : ""} at {formatTime(theirs.updatedAt)}, after you started
        editing. Your changes were not saved.
      </p>
      <LazyDiffView
        a={{ text: theirs.source, label: `Theirs: version ${theirs.version}` }}
        b={{ text: conflict.mine.source, label: "Yours: unsaved" }}
        language={store.target.language}
      />
      <div class="row">
        <button type="button" class="btn" onClick={() => store.takeTheirs()}>
          Take theirs
        </button>
        <BusyButton
          kind="primary"
          busyLabel="Saving…"
          onProblem={setProblem}
          onClick={() => store.keepMine(note)}
        >
          Keep mine on top
        </BusyButton>
      </div>
      <ProblemView problem={problem} />
    </section>
  );
}
