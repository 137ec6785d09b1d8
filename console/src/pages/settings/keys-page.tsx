// API keys of the workspace (admin): the list (paged by the API's cursor, ?cursor= in the URL),
// minting a key (its secret shown once) and revoking one after a confirmation.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { formatTime } from "../../components/format";
import { useQueryState } from "../../components/query-state";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog, ShownOnceDialog } from "../../components/dialog";
import { type ApiKey, CreateKeyForm, type CreatedKey } from "./create-key-form";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { TableWrap } from "../../components/table-wrap";

export function KeysPage() {
  return (
    <AdminOnly title="API keys">
      <Keys />
    </AdminOnly>
  );
}

function Keys() {
  const ws = useRoute().params.ws ?? "";
  const { query, href } = useQueryState();
  const cursor = query.cursor ?? "";
  const keys = useResource(`${ws}|${cursor}`, (signal) =>
    jsonOf(
      api.v1.workspaces[":ws"].keys.$get(
        { ...params({ ws }), query: { limit: "50", ...(cursor ? { cursor } : {}) } },
        cancelledBy(signal),
      ),
    ),
  );
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);

  return (
    <>
      <PageHeader title="API keys" />
      <p class="muted page-intro">
        Keys let the CLI, agents and CI call this workspace. A key acts as the actor you name; its scopes
        decide what it may do.
      </p>
      <section class="card" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <CreateKeyForm
          ws={ws}
          onCreated={(key) => {
            setCreated(key);
            void keys.reload();
          }}
        />
      </section>
      <section class="stack" aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        <ProblemView problem={keys.problem} />
        <TableWrap label="API keys" busy={keys.loading}>
          <table class="data-table" aria-labelledby="keys-title">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Actor</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.items.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td class="mono">{key.id}</td>
                  <td>{key.actor}</td>
                  <td>
                    <span class="badge-list">
                      {key.scopes.map((scope) => (
                        <span key={scope} class={`badge${scope === "admin" ? " badge-draft" : ""}`}>
                          {scope}
                        </span>
                      ))}
                    </span>
                  </td>
                  <td title={key.createdAt}>{formatTime(key.createdAt)}</td>
                  <td>
                    {key.revokedAt ? (
                      <span class="badge badge-danger" title={key.revokedAt}>
                        Revoked {formatTime(key.revokedAt)}
                      </span>
                    ) : (
                      <span class="badge badge-ok">Active</span>
                    )}
                  </td>
                  <td class="actions-cell">
                    {!key.revokedAt && (
                      <button
                        type="button"
                        class="btn btn-danger"
                        aria-label={`Revoke key ${key.id} (${key.actor})`}
                        onClick={() => setRevoking(key)}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {keys.data?.items.length === 0 && <div class="empty">No keys yet.</div>}
          {!keys.data && keys.loading && <div class="empty">Loading keys…</div>}
        </TableWrap>
        <Pager cursor={cursor} next={keys.data?.nextCursor ?? null} href={href} label="Keys pages" />
      </section>
      {created && (
        <ShownOnceDialog
          title="Key created"
          label="API key"
          value={created.key}
          warning={
            <>
              <strong>Copy this key now.</strong> It is shown only once: the server keeps only its hash. If
              you lose it, revoke it and create a new one.
            </>
          }
          onClose={() => setCreated(null)}
        >
          <p>
            Key <code>{created.id}</code> acts as <strong>{created.actor}</strong> with{" "}
            {created.scopes.join(", ")}
            {created.profile !== "default" ? ` under access profile ${created.profile}` : ""}.
          </p>
        </ShownOnceDialog>
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke this key?"
          confirmLabel="Revoke key"
          busyLabel="Revoking…"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await api.v1.workspaces[":ws"].keys[":id"].$delete(params({ ws, id: revoking.id }));
            setRevoking(null);
            await keys.reload();
          }}
        >
          Key <code>{revoking.id}</code> ({revoking.actor}) stops working at once, for every client that uses
          it. This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}

/** First-page and next-page links for a cursor-paged list; the cursor lives in the URL. */
export function Pager(props: {
  cursor: string;
  next: string | null;
  href: (changes: Record<string, string | null>) => string;
  label: string;
}) {
  if (!props.cursor && !props.next) return null;
  return (
    <nav class="row pager" aria-label={props.label}>
      {props.cursor && (
        <a class="btn" href={props.href({ cursor: null })}>
          First page
        </a>
      )}
      {props.next && (
        <a class="btn" href={props.href({ cursor: props.next })}>
          Next page
        </a>
      )}
    </nav>
  );
}
