// Tool definitions the upstream changed since they were accepted: a list, and for the selected one
// (?review=<tool uid>) the diff and Accept. Hooks keep running against the accepted definition until then.
import { useState } from "preact/hooks";
import { api, optionalJson, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { formatAgo } from "../../components/format";
import type { QueryChanges } from "../../components/query-state";
import { DefinitionDiff } from "./definition-diff";
import { acceptedDefinition, type Tool } from "./types";

interface Props {
  ws: string;
  tools: Tool[];
  selected: string | null;
  href: (changes: QueryChanges) => string;
  onAccepted: () => void;
}

export function ReviewPanel(props: Props) {
  const [accepted, setAccepted] = useState<string | null>(null);
  const pending = props.tools.filter(
    (tool) => tool.reviewState === "review_required" && tool.removedAt === null,
  );
  const selected = pending.find((tool) => tool.uid === props.selected) ?? null;
  if (pending.length === 0 && props.selected === null) {
    return accepted ? (
      <div class="notice notice-ok" role="status">
        Accepted the new definition of <strong>{accepted}</strong>.
      </div>
    ) : null;
  }
  return (
    <section class="card review-card" aria-labelledby="review-title">
      <h2 id="review-title">Changes awaiting review ({pending.length})</h2>
      {accepted && (
        <div class="notice notice-ok" role="status">
          Accepted the new definition of <strong>{accepted}</strong>.
        </div>
      )}
      <p class="muted section-hint">
        The upstream changed these tools' definitions. Calls keep using the accepted definition until the
        change is accepted.
      </p>
      {pending.length > 0 && (
        <ul class="review-list">
          {pending.map((tool) => (
            <li key={tool.uid}>
              <a
                href={props.href({ review: tool.uid })}
                aria-current={tool.uid === props.selected ? "true" : undefined}
              >
                {tool.upstreamName}
              </a>{" "}
              <span class="muted">
                {tool.serviceName} · changed {formatAgo(tool.updatedAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {props.selected !== null && selected === null && (
        <div class="notice">
          Tool <code>{props.selected}</code> has no change awaiting review.{" "}
          <a href={props.href({ review: null })}>Close</a>
        </div>
      )}
      {selected && (
        <ReviewOne
          key={selected.uid}
          ws={props.ws}
          tool={selected}
          closeHref={props.href({ review: null })}
          onAccepted={() => {
            setAccepted(selected.upstreamName);
            props.onAccepted();
          }}
        />
      )}
    </section>
  );
}

function ReviewOne(props: { ws: string; tool: Tool; closeHref: string; onAccepted: () => void }) {
  const { tool } = props;
  const [problem, setProblem] = useState<ProblemError | null>(null);
  if (tool.pendingDefinition === null || tool.pendingHash === null) return null;
  const accept = async () => {
    await api.v1.workspaces[":ws"].tools[":tool"].review.accept.$post(
      params({ ws: props.ws, tool: tool.uid }),
      optionalJson({ definitionHash: tool.pendingHash }),
    );
    props.onAccepted();
  };
  return (
    <div class="stack review-one" aria-label={`Review ${tool.upstreamName}`} role="group">
      <div class="row">
        <h3>
          {tool.upstreamName} <span class="muted">({tool.serviceName})</span>
        </h3>
        <span class="spacer" />
        <a href={props.closeHref}>Close</a>
      </div>
      <DefinitionDiff before={acceptedDefinition(tool)} after={tool.pendingDefinition} />
      <ProblemView problem={problem} />
      {can("editor") ? (
        <div class="row">
          <BusyButton kind="primary" onClick={accept} onProblem={setProblem} busyLabel="Accepting…">
            Accept new definition
          </BusyButton>
          <span class="hint">
            Hooks of this tool are checked against the new definition from then on; review them on the{" "}
            <a href={`/w/${props.ws}/tools/${tool.uid}`}>tool's Hooks tab</a>.
          </span>
        </div>
      ) : (
        <p class="hint">Editors and admins can accept the change.</p>
      )}
    </div>
  );
}
