// Workspace secrets (admin): names only are listed; a value is written (password field, never shown
// again, not even after saving) and a secret deleted after a confirmation.
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { useResource } from "../../components/use-resource";
import { formatTime } from "../../components/format";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog } from "../../components/dialog";
import { fieldErrors, messagesAt } from "../../components/field-errors";
import { TextField } from "../../components/text-field";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { DataTable } from "../../components/data-table";
import { FormCard, ListSection } from "../../components/page-state";

const secretsApi = api.v1.workspaces[":ws"].secrets;

/**
 * The API's rule for names (SECRET_NAME_PATTERN in shared/secrets/credentials.ts, which needs the Workers
 * runtime and so cannot be imported here), checked to say so at the field.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function SecretsPage() {
  return (
    <AdminOnly
      title="Secrets"
      intro="Values are stored encrypted and are never shown again, here or through the API. Services name a secret as their authorization; setting an existing name replaces its value."
    >
      <Secrets />
    </AdminOnly>
  );
}

function Secrets() {
  const ws = useRoute().params.ws ?? "";
  const secrets = useResource(ws, (signal) => jsonOf(secretsApi.$get(params({ ws }), cancelledBy(signal))));
  const [deleting, setDeleting] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [name, setName] = useState("");
  const valueInput = useRef<HTMLInputElement>(null);

  return (
    <>
      <FormCard id="set-secret-title" title="Set a secret">
        <SetSecretForm
          ws={ws}
          name={name}
          onName={setName}
          valueInput={valueInput}
          onSaved={(secretName) => {
            setSaved(secretName);
            void secrets.reload();
          }}
        />
        {saved && (
          <div class="notice notice-ok" role="status">
            Secret <code>{saved}</code> saved.
          </div>
        )}
      </FormCard>
      <ListSection id="secrets-title" title="Secrets" problem={secrets.problem}>
        <DataTable
          class="data-table"
          label="Secrets"
          labelledBy="secrets-title"
          rows={secrets.data?.items}
          rowKey={(secret) => secret.name}
          loading={secrets.loading}
          loadingText="Loading secrets…"
          empty="No secrets yet."
          columns={[
            { header: "Name", cellClass: "mono", cell: (secret) => secret.name },
            {
              header: "Last set",
              title: (secret) => secret.updatedAt,
              cell: (secret) => (
                <>
                  {formatTime(secret.updatedAt)}
                  {secret.updatedBy && <span class="muted"> by {secret.updatedBy}</span>}
                </>
              ),
            },
            {
              header: "Actions",
              hideHeader: true,
              cellClass: "actions-cell",
              cell: (secret) => (
                <div class="row nowrap">
                  <button
                    type="button"
                    class="btn"
                    aria-label={`Replace value of ${secret.name}`}
                    onClick={() => {
                      setName(secret.name);
                      valueInput.current?.focus();
                    }}
                  >
                    Replace value
                  </button>
                  <button
                    type="button"
                    class="btn btn-danger"
                    aria-label={`Delete ${secret.name}`}
                    onClick={() => setDeleting(secret.name)}
                  >
                    Delete
                  </button>
                </div>
              ),
            },
          ]}
        />
      </ListSection>
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting}?`}
          confirmLabel="Delete secret"
          busyLabel="Deleting…"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await secretsApi[":name"].$delete(params({ ws, name: deleting }));
            setDeleting(null);
            setSaved(null);
            await secrets.reload();
          }}
        >
          Services that name <code>{deleting}</code> as their authorization can no longer be refreshed or
          called until it is set again.
        </ConfirmDialog>
      )}
    </>
  );
}

function SetSecretForm(props: {
  valueInput: RefObject<HTMLInputElement | null>;
  ws: string;
  name: string;
  onName: (name: string) => void;
  onSaved: (name: string) => void;
}) {
  const [value, setValue] = useState("");
  const { valueInput } = props;
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const name = props.name.trim();
  const badName = name !== "" && !NAME.test(name);
  const errors = fieldErrors(problem);
  const nameErrors = badName
    ? ["1–64 letters, digits, _, . or -, starting with a letter or digit."]
    : messagesAt(errors, "/name");
  const valueErrors = messagesAt(errors, "/value");

  const save = async () => {
    await secretsApi[":name"].$put({ ...params({ ws: props.ws, name }), json: { value } });
    // The value leaves the page as soon as it is stored.
    setValue("");
    props.onName("");
    props.onSaved(name);
  };

  return (
    <form class="stack" onSubmit={(event) => event.preventDefault()} autocomplete="off">
      <div class="form-grid">
        <TextField
          label="Name"
          messages={nameErrors}
          name="secret-name"
          value={props.name}
          required
          maxLength={64}
          autocomplete="off"
          spellcheck={false}
          onValue={props.onName}
        />
        <TextField
          label="Value"
          hint="Write-only: it is never displayed back."
          messages={valueErrors}
          inputRef={valueInput}
          name="secret-value"
          type="password"
          value={value}
          required
          autocomplete="new-password"
          onValue={setValue}
        />
      </div>
      <ProblemView problem={problem} />
      <div class="row">
        <BusyButton
          type="submit"
          kind="primary"
          onClick={save}
          onProblem={setProblem}
          busyLabel="Saving…"
          disabled={name === "" || badName || value === ""}
        >
          Save secret
        </BusyButton>
      </div>
    </form>
  );
}
