// Approvals (/w/:ws/approvals): calls a tool adapter held for a person to decide, newest first. The list
// polls while the tab is visible, so a call held while the page is open shows up by itself; Approve and
// Deny each ask first, then say what they did. Viewers see the list without the actions.
import type { InferResponseType } from "hono/client";
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { can } from "../../api/session";
import { DataTable } from "../../components/data-table";
import { ConfirmDialog } from "../../components/dialog";
import { formatAgo, formatTime, shortId } from "../../components/format";
import { PageState } from "../../components/page-state";
import { Pager } from "../../components/pager";
import { useQueryState } from "../../components/query-state";
import { PageHeader } from "../../components/shell";
import { usePoll } from "../../components/use-poll";
import { useResource } from "../../components/use-resource";
// Vite bundles the page's stylesheet through this import.
import "./approvals.css";

const approvalsOf = api.v1.workspaces[":ws"].approvals;
type Approval = InferResponseType<typeof approvalsOf.$get, 200>["items"][number];
type Decision = "approve" | "deny";

/** Often enough that a waiting agent is not kept long, seldom enough to cost the server nothing. */
const POLL_MS = 5000;
/** Arguments longer than this fold away behind their line count, so one call does not fill the page. */
const SHOWN_LINES = 8;

const SOURCES: Record<string, string> = {
  hook: "asked by the tool adapter",
  host_call: "asked by a host call",
  risk: "the tool's risk needs approval",
};

/** The exact arguments an approved repeat must send, as JSON. */
function BoundArguments({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  const lines = text.split("\n").length;
  if (lines <= SHOWN_LINES) return <pre class="approval-args">{text}</pre>;
  return (
    <details class="approval-args-fold">
      <summary>{lines} lines of JSON</summary>
      <pre class="approval-args">{text}</pre>
    </details>
  );
}

export function ApprovalsPage() {
  const ws = useRoute().params.ws ?? "";
  const { query, href } = useQueryState();
  const cursor = query.cursor ?? "";
  const approvals = useResource(`${ws}|${cursor}`, (signal) =>
    jsonOf(
      approvalsOf.$get(
        { ...params({ ws }), query: { status: "pending", limit: "50", ...(cursor ? { cursor } : {}) } },
        cancelledBy(signal),
      ),
    ),
  );
  usePoll(() => void approvals.reload(), POLL_MS);
  const [asking, setAsking] = useState<{ approval: Approval; decision: Decision } | null>(null);
  const [done, setDone] = useState<string>("");
  const editor = can("editor");

  const decide = async (approval: Approval, decision: Decision) => {
    try {
      const decided = await jsonOf(approvalsOf[":id"][decision].$post(params({ ws, id: approval.id })));
      setDone(
        decision === "approve"
          ? `Approved the call to ${decided.toolName}: ${decided.actor} may repeat it once, until ${formatTime(decided.expiresAt)}.`
          : `Denied the call to ${decided.toolName} by ${decided.actor}.`,
      );
      setAsking(null);
    } finally {
      // Decided here or meanwhile by someone else: either way the list has changed.
      void approvals.reload();
    }
  };

  return (
    <>
      <PageHeader title="Approvals" />
      <p class="muted page-intro">
        Calls held for a person to decide: a tool adapter asked for approval, or the tool's risk needs it.
        Approving lets the agent repeat its call once within an hour of asking; the gateway then sends exactly
        the arguments shown, while the revision shown is still active. New calls show up here by themselves.
      </p>
      {!editor && <p class="notice">Deciding needs the editor role; you can see what is waiting.</p>}
      {done && (
        <p class="notice notice-ok" role="status">
          {done}
        </p>
      )}
      <PageState
        state={approvals}
        loadingText="Loading approvals…"
        isEmpty={(page) => page.items.length === 0 && cursor === ""}
        empty="No calls are waiting for approval."
      >
        {(page) => (
          <>
            <DataTable
              class="data-table approvals-table"
              label="Pending approvals"
              ariaLabel="Pending approvals"
              rows={page.items}
              rowKey={(a) => a.id}
              rowAttributes={(a) => ({ "data-approval-id": a.id })}
              loading={approvals.loading}
              empty="No more calls on this page."
              columns={[
                {
                  header: "Tool",
                  cell: (a) =>
                    a.source === "hook" ? (
                      <a href={`/w/${ws}/tools/${encodeURIComponent(a.toolUid)}`}>{a.toolName}</a>
                    ) : (
                      a.toolName
                    ),
                },
                {
                  header: "Reason",
                  cellClass: "approval-reason",
                  cell: (a) => (
                    <>
                      {a.reason}
                      <div class="hint">{SOURCES[a.source] ?? a.source}</div>
                    </>
                  ),
                },
                { header: "Arguments", cell: (a) => <BoundArguments value={a.arguments} /> },
                {
                  header: "Revision",
                  cell: (a) =>
                    a.revisionId ? (
                      <code title={a.revisionId}>{shortId(a.revisionId)}</code>
                    ) : (
                      <span class="muted">—</span>
                    ),
                },
                { header: "Requested by", title: (a) => `key ${a.keyId}`, cell: (a) => a.actor },
                {
                  header: "Age",
                  title: (a) => a.createdAt,
                  cell: (a) => (
                    <>
                      {formatAgo(a.createdAt)}
                      <div class="hint">expires {formatAgo(a.expiresAt)}</div>
                    </>
                  ),
                },
                editor && {
                  header: "Actions",
                  hideHeader: true,
                  cellClass: "actions-cell",
                  cell: (a) => (
                    <div class="row nowrap">
                      <button
                        type="button"
                        class="btn btn-primary"
                        onClick={() => setAsking({ approval: a, decision: "approve" })}
                      >
                        Approve
                        <span class="sr-only">
                          {" "}
                          the call to {a.toolName} by {a.actor}
                        </span>
                      </button>
                      <button
                        type="button"
                        class="btn btn-danger"
                        onClick={() => setAsking({ approval: a, decision: "deny" })}
                      >
                        Deny
                        <span class="sr-only">
                          {" "}
                          the call to {a.toolName} by {a.actor}
                        </span>
                      </button>
                    </div>
                  ),
                },
              ]}
            />
            <Pager cursor={cursor} next={page.nextCursor} href={href} label="Approvals pages" />
          </>
        )}
      </PageState>
      {asking && (
        <ConfirmDialog
          title={
            asking.decision === "approve"
              ? `Approve this call to ${asking.approval.toolName}?`
              : `Deny this call to ${asking.approval.toolName}?`
          }
          confirmLabel={asking.decision === "approve" ? "Approve call" : "Deny call"}
          busyLabel={asking.decision === "approve" ? "Approving…" : "Denying…"}
          confirmKind={asking.decision === "approve" ? "primary" : "danger"}
          onClose={() => setAsking(null)}
          onConfirm={() => decide(asking.approval, asking.decision)}
        >
          <div class="stack">
            <p class="dialog-text">
              {asking.decision === "approve"
                ? `${asking.approval.actor} may then repeat the call once, until ${formatTime(asking.approval.expiresAt)}, and exactly these arguments are sent.`
                : `${asking.approval.actor}'s repeat of this call is refused; calling again asks for a new approval.`}{" "}
              Reason given: {asking.approval.reason}
            </p>
            <BoundArguments value={asking.approval.arguments} />
          </div>
        </ConfirmDialog>
      )}
    </>
  );
}
