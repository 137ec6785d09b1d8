// API keys of the workspace (admin): the list (paged by the API's cursor, ?cursor= in the URL),
// minting a key (its secret shown once) and revoking one after a confirmation.
import { useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { useResource } from "../../components/use-resource";
import { formatTime } from "../../components/format";
import { useQueryState } from "../../components/query-state";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog, ShownOnceDialog } from "../../components/dialog";
import { type ApiKey, CreateKeyForm, type CreatedKey } from "./create-key-form";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { DataTable } from "../../components/data-table";
import { FormCard, ListSection } from "../../components/page-state";
import { Pager } from "../../components/pager";

export function KeysPage() {
  return (
    <AdminOnly
      title="API keys"
      intro="Keys let the CLI, agents and CI call this workspace. A key acts as the actor you name; its scopes decide what it may do."
    >
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
      <FormCard id="create-key-title" title="Create a key">
        <CreateKeyForm
          ws={ws}
          onCreated={(key) => {
            setCreated(key);
            void keys.reload();
          }}
        />
      </FormCard>
      <ListSection id="keys-title" title="Keys" problem={keys.problem}>
        <DataTable
          class="data-table"
          label="API keys"
          labelledBy="keys-title"
          rows={keys.data?.items}
          rowKey={(key) => key.id}
          rowAttributes={(key) => ({ "data-key-id": key.id })}
          loading={keys.loading}
          loadingText="Loading keys…"
          empty="No keys yet."
          columns={[
            {
              header: "Key",
              cellClass: "mono",
              // The secret's last characters are what the person holding the key can compare.
              cell: (key) =>
                key.displayHint ?? (
                  <span class="muted" title="Keys created before hints were kept show no hint">
                    no hint
                  </span>
                ),
            },
            { header: "Id", cellClass: "mono", cell: (key) => key.id },
            { header: "Actor", cell: (key) => key.actor },
            {
              header: "Scopes",
              cell: (key) => (
                <span class="badge-list">
                  {key.scopes.map((scope) => (
                    <span key={scope} class={`badge${scope === "admin" ? " badge-draft" : ""}`}>
                      {scope}
                    </span>
                  ))}
                </span>
              ),
            },
            { header: "Created", title: (key) => key.createdAt, cell: (key) => formatTime(key.createdAt) },
            {
              header: "Status",
              cell: (key) =>
                key.revokedAt ? (
                  <span class="badge badge-danger" title={key.revokedAt}>
                    Revoked {formatTime(key.revokedAt)}
                  </span>
                ) : (
                  <span class="badge badge-ok">Active</span>
                ),
            },
            {
              header: "Actions",
              hideHeader: true,
              cellClass: "actions-cell",
              cell: (key) =>
                !key.revokedAt && (
                  <button
                    type="button"
                    class="btn btn-danger"
                    aria-label={`Revoke key ${key.displayHint ?? key.id} (${key.actor})`}
                    onClick={() => setRevoking(key)}
                  >
                    Revoke
                  </button>
                ),
            },
          ]}
        />
        <Pager cursor={cursor} next={keys.data?.nextCursor ?? null} href={href} label="Keys pages" />
      </ListSection>
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
            Key <code>{created.displayHint ?? created.id}</code> acts as <strong>{created.actor}</strong> with{" "}
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
          Key <code>{revoking.displayHint ?? revoking.id}</code> ({revoking.actor}) stops working at once, for
          every client that uses it. This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}
