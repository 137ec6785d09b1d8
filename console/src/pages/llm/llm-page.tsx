// LLM hook & plugins (/w/:ws/llm): the workspace config's `pre_llm_hook` as target rows and its
// `plugins` order, saved together under If-Match (admins). Other config keys are sent back unchanged.
import { useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, cancelledBy, jsonOf, params } from "../../api/client";
import { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";
import { useResource } from "../../components/use-resource";
import { formatTime } from "../../components/format";
import { entryPointer } from "../../components/field-errors";
import {
  documentWith,
  type HookForm,
  hookConfig,
  hookForm,
  placeKey,
  placeOf,
  type StoredConfig,
} from "./config-model";
import { HookTargets, type LibFile } from "./hook-targets";
import { PluginOrder, type PluginFile } from "./plugin-order";
// Vite bundles the page's stylesheet through this import.
import "./llm.css";

const workspace = api.v1.workspaces[":ws"];

/** The ETag header is authoritative; the body carries the same value. */
async function storedOf(response: {
  headers: Headers;
  json(): Promise<StoredConfig>;
}): Promise<StoredConfig> {
  const stored = await response.json();
  return { ...stored, etag: response.headers.get("etag") ?? stored.etag };
}

async function load(ws: string, signal: AbortSignal) {
  const cancel = cancelledBy(signal);
  const [stored, limits, files] = await Promise.all([
    workspace.config.$get(params({ ws }), cancel).then(storedOf),
    jsonOf(api.v1.limits.$get(undefined, cancel)),
    jsonOf(workspace.files.$get({ ...params({ ws }), query: { limit: "200" } }, cancel)),
  ]);
  return { stored, defaultTimeoutMs: limits.requestHookTimeoutMs, files: files.items };
}

/** Problem entries by the place they show at (see config-model placeOf). */
function errorsByPlace(problem: ProblemError | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const entry of problem?.errors ?? []) {
    const pointer = entryPointer(entry);
    const message = entry.message ?? entry.detail;
    if (pointer === null || typeof message !== "string") continue;
    const key = placeKey(placeOf(pointer));
    out.set(key, [...(out.get(key) ?? []), message]);
  }
  return out;
}

export function LlmPage() {
  const ws = useRoute().params.ws ?? "";
  const loaded = useResource(ws, (signal) => load(ws, signal));
  const [stored, setStored] = useState<StoredConfig | null>(null);
  const [form, setForm] = useState<HookForm>(hookForm(undefined));
  const [plugins, setPlugins] = useState<string[]>([]);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [saved, setSaved] = useState(false);
  const admin = can("admin");

  // A fresh read replaces the form (first load, and "Reload" after a conflict).
  useEffect(() => {
    const data = loaded.data;
    if (!data) return;
    setStored(data.stored);
    setForm(hookForm(data.stored.config.pre_llm_hook));
    setPlugins(data.stored.config.plugins ?? []);
  }, [loaded.data]);

  const files = loaded.data?.files ?? [];
  const libFiles: LibFile[] = files
    .filter((f) => f.kind === "lib")
    .map((f) => ({ path: f.path, active: f.deployments.active !== null }));
  const pluginFiles: PluginFile[] = files
    .filter((f) => f.kind === "plugin")
    .map((f) => ({ name: f.name, path: f.path, active: f.deployments.active !== null }));

  const built = hookConfig(form);
  const doc = stored ? documentWith(stored.config, built.hook, plugins) : null;
  const dirty =
    stored !== null &&
    JSON.stringify(doc) !==
      JSON.stringify(documentWith(stored.config, stored.config.pre_llm_hook, stored.config.plugins ?? []));
  const errors = errorsByPlace(problem);
  if (built.problem) errors.set("targets", [...(errors.get("targets") ?? []), built.problem]);

  const save = async () => {
    if (!stored || !doc) return;
    if (built.problem)
      throw new ProblemError(400, "invalid_request", "The request hook has no target", built.problem, [], {});
    const next = await workspace.config
      .$put({ ...params({ ws }), json: doc }, { headers: { "if-match": stored.etag } })
      .then(storedOf);
    setStored(next);
    setForm(hookForm(next.config.pre_llm_hook));
    setPlugins(next.config.plugins ?? []);
    setSaved(true);
  };
  const cap = stored?.config.limits?.execution_timeout_ms;
  const defaultTimeoutMs = loaded.data?.defaultTimeoutMs ?? 5000;

  return (
    <>
      <PageHeader
        title="LLM hook & plugins"
        actions={
          <a class="btn" href={`/w/${ws}/files`}>
            lib/ and plugins/ files
          </a>
        }
      />
      <ProblemView problem={loaded.problem} />
      {stored && (
        <p class="muted config-meta">
          Workspace config version {stored.version}
          {stored.updatedAt && ` · saved ${formatTime(stored.updatedAt)}`}
          {stored.updatedBy && ` by ${stored.updatedBy}`}
        </p>
      )}
      {!admin && stored && (
        <div class="notice">Only workspace admins change the workspace config; you can read it.</div>
      )}
      {stored && (
        <form
          class="stack"
          onSubmit={(event) => event.preventDefault()}
          onInput={() => setSaved(false)}
          onChange={() => setSaved(false)}
        >
          <div class="llm-grid">
            <HookTargets
              ws={ws}
              form={form}
              onChange={(next) => {
                setForm(next);
                setSaved(false);
              }}
              errors={errors}
              libFiles={libFiles}
              defaultTimeoutMs={defaultTimeoutMs}
              capMs={cap ?? defaultTimeoutMs}
              capIsSet={cap !== undefined}
              readOnly={!admin}
            />
            <PluginOrder
              ws={ws}
              listed={plugins}
              onChange={(next) => {
                setPlugins(next);
                setSaved(false);
              }}
              files={pluginFiles}
              errors={errors}
              readOnly={!admin}
            />
          </div>
          {admin && (
            <div class="save-bar card">
              <ProblemView problem={problem} />
              {problem?.code === "precondition_failed" && (
                <p class="hint">
                  Someone saved the config meanwhile. Reload to see their version (your changes here are
                  replaced).
                </p>
              )}
              <div class="row">
                <BusyButton
                  type="submit"
                  kind="primary"
                  onClick={save}
                  onProblem={setProblem}
                  busyLabel="Saving…"
                  disabled={!dirty}
                >
                  Save
                </BusyButton>
                <button
                  type="button"
                  class="btn"
                  onClick={() => {
                    setProblem(null);
                    void loaded.reload();
                  }}
                >
                  {dirty ? "Discard and reload" : "Reload"}
                </button>
                <span class="muted" role="status">
                  {saved ? "Saved." : dirty ? "Unsaved changes." : ""}
                </span>
              </div>
            </div>
          )}
        </form>
      )}
      {!stored && loaded.loading && <div class="empty">Loading the workspace config…</div>}
    </>
  );
}
