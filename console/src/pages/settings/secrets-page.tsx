// Workspace secrets (admin): names only are listed; a value is written (password field, never shown
// again, not even after saving) and a secret deleted after a confirmation.
import type { RefObject } from "preact";
import { useRef, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { formatTime } from "../../components/format";
import { AdminOnly } from "./admin-only";
import { ConfirmDialog } from "../../components/dialog";
import { Field, fieldErrors, messagesAt } from "../../components/field-errors";
// Vite bundles the page's stylesheet through this import.
import "./settings.css";
import { TableWrap } from "../../components/table-wrap";

const secretsApi = api.v1.workspaces[":ws"].secrets;

/**
 * The API's rule for names (SECRET_NAME_PATTERN in shared/secrets/credentials.ts, which needs the Workers
 * runtime and so cannot be imported here), checked to say so at the field.
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function SecretsPage() {
  return (
    <AdminOnly title="Secrets">
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
      <PageHeader title="Secrets" />
      <p class="muted page-intro">
        Values are stored encrypted and are never shown again, here or through the API. Services name a secret
        as their authorization; setting an existing name replaces its value.
      </p>
      <section class="card" aria-labelledby="set-secret-title">
        <h2 id="set-secret-title">Set a secret</h2>
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
      </section>
      <section class="stack" aria-labelledby="secrets-title">
        <h2 id="secrets-title">Secrets</h2>
        <ProblemView problem={secrets.problem} />
        <TableWrap label="Secrets" busy={secrets.loading}>
          <table class="data-table" aria-labelledby="secrets-title">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Last set</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {secrets.data?.items.map((secret) => (
                <tr key={secret.name}>
                  <td class="mono">{secret.name}</td>
                  <td title={secret.updatedAt ?? undefined}>
                    {formatTime(secret.updatedAt)}
                    {secret.updatedBy && <span class="muted"> by {secret.updatedBy}</span>}
                  </td>
                  <td class="actions-cell">
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
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {secrets.data?.items.length === 0 && <div class="empty">No secrets yet.</div>}
          {!secrets.data && secrets.loading && <div class="empty">Loading secrets…</div>}
        </TableWrap>
      </section>
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
        <Field label="Name" messages={nameErrors}>
          {(control) => (
            <input
              {...control}
              name="secret-name"
              value={props.name}
              required
              maxLength={64}
              autocomplete="off"
              spellcheck={false}
              onInput={(event) => props.onName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Value" hint="Write-only: it is never displayed back." messages={valueErrors}>
          {(control) => (
            <input
              {...control}
              ref={valueInput}
              name="secret-value"
              type="password"
              value={value}
              required
              autocomplete="new-password"
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          )}
        </Field>
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
