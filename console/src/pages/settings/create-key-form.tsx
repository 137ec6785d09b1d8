import { useId, useState } from "preact/hooks";
import type { InferResponseType } from "hono/client";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import type { ProblemError } from "../../api/problem";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { useResource } from "../../components/use-resource";
import { FieldError, fieldErrors, invalidProps, messagesAt } from "../../components/field-errors";
import { SelectField, TextField } from "../../components/text-field";

const keysApi = api.v1.workspaces[":ws"].keys;
export type ApiKey = InferResponseType<typeof keysApi.$get, 200>["items"][number];
export type CreatedKey = InferResponseType<typeof keysApi.$post, 201>;

const SCOPES = [
  { scope: "hooks:read", hint: "read hooks, tools, logs (metadata)" },
  { scope: "hooks:write", hint: "save, test, deploy hooks; see log details" },
  { scope: "tools:call", hint: "call tools through /mcp and the LLM proxy" },
  { scope: "admin", hint: "everything in the workspace" },
] as const;
type Scope = (typeof SCOPES)[number]["scope"];

/** Actor, scopes and access profile of a new key; the created key (with its secret) goes to onCreated. */
export function CreateKeyForm({ ws, onCreated }: { ws: string; onCreated: (key: CreatedKey) => void }) {
  const [actor, setActor] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["hooks:read"]);
  const [profile, setProfile] = useState("default");
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const profiles = useResource(ws, (signal) =>
    jsonOf(api.v1.workspaces[":ws"]["access-profiles"].$get(params({ ws }), cancelledBy(signal))),
  );
  const id = useId();
  const errors = fieldErrors(problem);
  const actorErrors = messagesAt(errors, "/actor");
  const scopeErrors = messagesAt(errors, "/scopes", true);
  const profileErrors = messagesAt(errors, "/profile");

  const create = async () => {
    const json = { actor: actor.trim(), scopes, profile };
    const key = await jsonOf(keysApi.$post({ ...params({ ws }), json }));
    setActor("");
    onCreated(key);
  };
  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));

  return (
    <form class="stack" onSubmit={(event) => event.preventDefault()}>
      <div class="form-grid">
        <TextField
          label="Actor"
          hint="Who acts with this key; recorded on every change it makes."
          messages={actorErrors}
          name="actor"
          value={actor}
          required
          maxLength={100}
          placeholder="ci-deployer"
          autocomplete="off"
          onValue={setActor}
        />
        <SelectField
          label="Access profile"
          hint="Which tools the key may call."
          messages={profileErrors}
          name="profile"
          value={profile}
          choices={(profiles.data?.items ?? [{ name: "default" }]).map((p) => ({
            value: p.name,
            label: p.name,
          }))}
          onValue={setProfile}
        />
      </div>
      <fieldset class="scopes" {...invalidProps(scopeErrors, `${id}-scopes`)}>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, hint }) => (
          <div class="check-row" key={scope}>
            <label class="inline">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />
              <code>{scope}</code>
            </label>
            <span class="hint">{hint}</span>
          </div>
        ))}
        <FieldError messages={scopeErrors} id={`${id}-scopes`} />
      </fieldset>
      <ProblemView problem={problem} />
      <div class="row">
        <BusyButton
          type="submit"
          kind="primary"
          onClick={create}
          onProblem={setProblem}
          busyLabel="Creating…"
          disabled={actor.trim() === "" || scopes.length === 0}
        >
          Create key
        </BusyButton>
      </div>
    </form>
  );
}
