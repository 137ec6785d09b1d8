// Deploy a tested version to shadow or active, the revisions with rollback, removing the shadow,
// and reset (admins, behind typing the target's name).
import { useLocation } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import { jsonOf } from "../../api/client";
import { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { BusyButton } from "../../components/busy-button";
import { ProblemView } from "../../components/problem-view";
import { ConfirmDialog } from "../../components/dialog";
import { noteCompileProblem } from "./compile";
import { formatBytes, formatTime, shortId } from "../../components/format";
import { ResetZone } from "./reset-zone";
import { RunsPanel } from "./runs-panel";
import { asProblem, type HookStore } from "./store";
import { runAndRecord, useFileExports, useFunctionOf, VersionSelect } from "./test-panel";
import type { Revision } from "./types";
import { withQuery } from "./url";
import { DataTable } from "../../components/data-table";
import { PageState } from "../../components/page-state";

type Channel = "shadow" | "active";

/** Why a revision cannot serve any more, as the rollback route would refuse it; null when it can. */
function incompatibility(store: HookStore, revision: Revision): string | null {
  const target = store.target;
  if (target.kind !== "tool" || !("definitionHash" in revision)) return null;
  if (revision.definitionHash === target.tool.definitionHash) return null;
  return "The revision was compiled against an earlier upstream definition of the tool.";
}

function DeployForm({ store }: { store: HookStore }) {
  const draftVersion = store.draft.value?.version ?? 0;
  const [version, setVersion] = useState<number | null>(null);
  const [channel, setChannel] = useState<Channel>("shadow");
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [done, setDone] = useState<string>("");
  const chosen = version ?? draftVersion;
  const pointers = store.state.value?.deployments;
  const serving = `${pointers?.active?.revisionId ?? ""}/${pointers?.shadow?.revisionId ?? ""}`;
  // The confirmation describes the last deploy only while the pointers stay where it put them.
  const [doneFor, setDoneFor] = useState("");
  // "Run test, then deploy" runs the test console's inputs: their function must be one this version has.
  useFunctionOf(store, useFileExports(store, version));
  const testedHere = store.testedVersions.value.has(chosen);
  const tested = testedHere || store.testedOnServer.value.has(chosen);
  const lastPassing = store.testStatus.value.get(chosen)?.lastPassingRun ?? null;
  // Tests of other sessions (a reload, a colleague, the CLI) count too: the server says which.
  useEffect(() => {
    const abort = new AbortController();
    if (chosen > 0) void store.loadTestStatus(chosen, abort.signal);
    return () => abort.abort();
  }, [store, chosen]);
  const notTested = problem?.code === "not_tested";
  const refused = typeof problem?.body.version === "number" ? problem.body.version : chosen;
  const { url } = useLocation();

  const deploy = async () => {
    setDone("");
    let answer;
    try {
      answer = await jsonOf(store.lifecycle.deployments.$post({ json: { version: chosen, channel } }));
    } catch (error) {
      const p = asProblem(error);
      noteCompileProblem(store, p, chosen);
      throw p;
    } finally {
      void store.refreshQuotas();
      await store.refreshDeployments();
    }
    store.deployedVersions.value = new Set(store.deployedVersions.value).add(answer.revision.version);
    const now = store.state.value?.deployments;
    setDoneFor(`${now?.active?.revisionId ?? ""}/${now?.shadow?.revisionId ?? ""}`);
    setDone(
      `Version ${answer.revision.version} is ${answer.channel} as revision ${shortId(answer.revision.id)}${answer.reused ? " (an identical revision was reused)" : ""}.`,
    );
  };

  const testThenDeploy = async () => {
    const run = await runAndRecord(store, chosen);
    if (!run.ok || run.ran === false) {
      // The run is in the test console's list with its logs; here it only stops the deploy.
      throw new ProblemError(
        0,
        run.code ?? "test_not_passed",
        "The test did not pass, so nothing was deployed",
        run.ok
          ? "The stage is not defined by this version, so the run does not count as a test."
          : (run.message ?? ""),
        [],
        {},
      );
    }
    await deploy();
  };

  const inputs = store.inputs.value;
  const testLabel =
    store.target.kind === "tool" ? `${inputs.stage} stage` : inputs.fn ? `${inputs.fn}()` : "main()";

  return (
    <section class="card stack" aria-labelledby="deploy-heading">
      <h2 id="deploy-heading">Deploy</h2>
      {draftVersion === 0 ? (
        <p class="muted">Save a draft and test it before deploying.</p>
      ) : (
        <>
          <div class="deploy-form">
            <VersionSelect
              store={store}
              value={version}
              onChange={setVersion}
              label="Version to deploy"
              id="deploy-version"
            />
            <fieldset class="segmented">
              <legend>Channel</legend>
              {(["shadow", "active"] as const).map((c) => (
                <label key={c} class="inline">
                  <input
                    type="radio"
                    name="channel"
                    value={c}
                    checked={channel === c}
                    onChange={() => setChannel(c)}
                  />
                  {c === "shadow" ? "Shadow" : "Active"}
                </label>
              ))}
            </fieldset>
          </div>
          <p class="hint">
            {channel === "shadow"
              ? "Shadow runs beside the active revision on real calls; its outcome is logged, never returned."
              : "Active serves every call of this " + (store.target.kind === "tool" ? "tool." : "file.")}
          </p>
          {tested ? (
            <p class="notice notice-ok" role="status">
              Version {chosen} passed a test
              {testedHere
                ? " in this session"
                : lastPassing
                  ? ` (${lastPassing.stage}, by ${lastPassing.actor}, ${formatTime(lastPassing.at)})`
                  : ""}
              .
            </p>
          ) : (
            <p class="notice" role="status">
              No successful test of version {chosen}. The API deploys only versions with a successful test
              run.
            </p>
          )}
          <div class="row">
            <BusyButton kind="primary" busyLabel="Deploying…" onProblem={setProblem} onClick={deploy}>
              Deploy version {chosen} to {channel}
            </BusyButton>
            {(!tested || notTested) && (
              <BusyButton
                busyLabel="Testing, then deploying…"
                onProblem={setProblem}
                onClick={testThenDeploy}
              >
                Run test, then deploy
              </BusyButton>
            )}
          </div>
          {(!tested || notTested) && (
            <p class="hint">
              “Run test, then deploy” runs the test console's current inputs ({testLabel}) against version{" "}
              {chosen}.
            </p>
          )}
          <ProblemView problem={problem} id="deploy-problem" />
          {notTested && (
            <div class="row">
              <a class="btn btn-primary" href={withQuery(url, { view: "test", version: String(refused) })}>
                Test version {refused}
              </a>
              <span class="hint">
                Opens the test console on version {refused}; a passing run makes it deployable.
              </span>
            </div>
          )}
          {done && doneFor === serving && (
            <p class="notice notice-ok" role="status">
              {done}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** "version 3 (revision rev_…abc123)": how a rollback names the revisions it moves between. */
const revisionName = (revision: Revision | undefined, id: string | undefined) =>
  revision
    ? `version ${revision.version} (revision ${shortId(revision.id)})`
    : id
      ? `revision ${shortId(id)}`
      : "no revision";

function Revisions({ store }: { store: HookStore }) {
  // A rollback asks first (it changes what serves every call at once), then says what it did.
  const [asking, setAsking] = useState<Revision | null>(null);
  const [moved, setMoved] = useState<{ text: string; active: string } | null>(null);
  const [shadowProblem, setShadowProblem] = useState<ProblemError | null>(null);
  const revisions = store.revisions.value;
  const deployments = store.state.value?.deployments;
  const activeRevision = revisions?.find((r) => r.id === deployments?.active?.revisionId);
  const editor = can("editor");

  const isOlder = (revision: Revision) =>
    activeRevision === undefined || revision.createdAt < activeRevision.createdAt;
  const rollback = async (revision: Revision) => {
    const was = revisionName(activeRevision, deployments?.active?.revisionId);
    try {
      await store.lifecycle.rollback.$post({ json: { revision: revision.id, channel: "active" } });
    } finally {
      void store.refreshDeployments();
    }
    setAsking(null);
    setMoved({
      text: `${isOlder(revision) ? "Rolled back" : "Made active"}: active is now ${revisionName(revision, revision.id)}, was ${was}.`,
      active: revision.id,
    });
  };
  const removeShadow = async () => {
    try {
      await store.lifecycle.shadow.$delete();
    } finally {
      void store.refreshDeployments();
    }
  };

  return (
    <section class="card stack" aria-labelledby="revisions-heading">
      <div class="row">
        <h2 id="revisions-heading">Revisions</h2>
        <span class="spacer" />
        {editor && deployments?.shadow && (
          <BusyButton busyLabel="Removing…" onProblem={setShadowProblem} onClick={removeShadow}>
            Remove shadow
          </BusyButton>
        )}
      </div>
      <ProblemView problem={shadowProblem} />
      {moved && deployments?.active?.revisionId === moved.active && (
        <p class="notice notice-ok" role="status">
          {moved.text}
        </p>
      )}
      <PageState
        state={{
          data: revisions ?? undefined,
          problem: store.revisionsProblem.value,
          loading: revisions === null,
        }}
        loadingText="Loading revisions…"
        isEmpty={(all) => all.length === 0}
        empty="Nothing deployed yet."
      >
        {(rows) => (
          <DataTable
            label="Revisions"
            caption="Deployment revisions, newest first"
            rows={rows}
            rowKey={(r) => r.id}
            rowAttributes={(r) => ({ "data-testid": `revision-${r.version}` })}
            columns={[
              { header: "Revision", cell: (r) => <code title={r.id}>{shortId(r.id)}</code> },
              { header: "Version", cell: (r) => `v${r.version}` },
              {
                header: "Serving",
                cell: (r) => {
                  const active = deployments?.active?.revisionId === r.id;
                  const shadow = deployments?.shadow?.revisionId === r.id;
                  return (
                    <>
                      {active && <span class="badge badge-active">active</span>}{" "}
                      {shadow && <span class="badge badge-shadow">shadow</span>}
                      {!active && !shadow && <span class="muted">—</span>}
                    </>
                  );
                },
              },
              { header: "Created", cell: (r) => formatTime(r.createdAt) },
              { header: "Actor", cell: (r) => r.actor },
              { header: "Size", cell: (r) => formatBytes(r.compiledBytes) },
              {
                header: "Actions",
                hideHeader: true,
                cell: (r) => {
                  const active = deployments?.active?.revisionId === r.id;
                  const reason = incompatibility(store, r);
                  // Revisions are newest first: one created before the active one is a rollback.
                  const older = isOlder(r);
                  return (
                    <>
                      {editor && !active && (
                        <button
                          type="button"
                          class="btn btn-secondary"
                          onClick={() => setAsking(r)}
                          disabled={reason !== null}
                          title={
                            reason ?? `Make revision ${shortId(r.id)} (version ${r.version}) active again`
                          }
                        >
                          {older ? "Roll back" : "Make active"}
                          <span class="sr-only"> to version {r.version}</span>
                        </button>
                      )}
                      {reason && <div class="hint incompatible">{reason}</div>}
                    </>
                  );
                },
              },
            ]}
          />
        )}
      </PageState>
      {asking && (
        <ConfirmDialog
          title={`${isOlder(asking) ? "Roll back" : "Switch"} to version ${asking.version}?`}
          confirmLabel={isOlder(asking) ? "Roll back" : "Make active"}
          busyLabel={isOlder(asking) ? "Rolling back…" : "Switching…"}
          confirmKind="primary"
          onClose={() => setAsking(null)}
          onConfirm={() => rollback(asking)}
        >
          Active becomes {revisionName(asking, asking.id)} at once, for every call, in place of{" "}
          {revisionName(activeRevision, deployments?.active?.revisionId)}. The revision was tested when it was
          deployed; it is not tested again.
        </ConfirmDialog>
      )}
    </section>
  );
}

export function DeployPanel({ store }: { store: HookStore }) {
  useEffect(() => {
    void store.loadRevisions();
  }, [store]);
  const editor = can("editor");
  return (
    <div class="stack">
      {editor ? <DeployForm store={store} /> : <p class="notice">Deploying needs the editor role.</p>}
      <Revisions store={store} />
      <RunsPanel store={store} />
      {can("admin") && <ResetZone store={store} />}
    </div>
  );
}
