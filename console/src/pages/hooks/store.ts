// One hook page's state, shared by its views (editor, test, versions, deploy) so switching views
// keeps the buffer, the test inputs and this session's runs. Signals: each view re-renders on
// what it reads.
import { computed, signal } from "@preact/signals";
import { api, cancelledBy, jsonOf, lifecycleApi, optionalJson, params } from "../../api/client";
import { networkProblem, ProblemError } from "../../api/problem";
import type { CompileDiagnostic } from "../../editor/server-diagnostics";
import type { ListedDiagnostic } from "../../editor/code-editor";
import type { HookTarget } from "./target";
import { initialInputs, type TestInputs } from "./test-inputs";
import type {
  Draft,
  HookState,
  JsonObject,
  Quotas,
  Revision,
  TestAnswer,
  TestStatus,
  VersionMeta,
} from "./types";
import { clearUnsaved, readUnsaved, writeUnsaved } from "./unsaved";

export const asProblem = (error: unknown): ProblemError =>
  error instanceof ProblemError ? error : networkProblem(error);

const configText = (draft: Draft) => JSON.stringify(draft.config, null, 2);

/** A 412 on save: the newer draft beside the edits that were refused. */
export interface Conflict {
  theirs: Draft;
  mine: { source: string; config: string };
}

/** Compiler diagnostics and the draft version they belong to. */
export interface CompileReport {
  version: number;
  diagnostics: CompileDiagnostic[];
}

export type SessionRun = TestAnswer & {
  at: string;
  label: string;
  input: unknown;
};

function parsedConfig(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === "" ? "{}" : text);
  } catch (error) {
    throw new ProblemError(0, "invalid_config", "Config is not valid JSON", String(error), [], {});
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ProblemError(0, "invalid_config", "Config must be a JSON object", "For example {}.", [], {});
  }
  return value as JsonObject;
}

/** The answer's ETag, which If-Match sends back; the draft carries it too. */
const etagOf = (response: { headers: Headers }, draft: Draft) => response.headers.get("etag") ?? draft.etag;

export function createHookStore(target: HookTarget) {
  const lifecycle = lifecycleApi(target.base);
  const state = signal<HookState | null>(null);
  const etag = signal<string>("");
  const loadProblem = signal<ProblemError | null>(null);
  const source = signal("");
  const config = signal("{}");
  const restoredFrom = signal<{ baseVersion: number; savedAt: string } | null>(null);
  const conflict = signal<Conflict | null>(null);
  /** What the last save or restore did, until the next edit. */
  const saved = signal("");
  /** The last save came back formatted (the API runs Prettier on source that parses), until the next edit. */
  const reformatted = signal(false);
  const declarations = signal<string | null>(null);
  const declarationsProblem = signal<ProblemError | null>(null);
  const compileReport = signal<CompileReport | null>(null);
  const diagnostics = signal<ListedDiagnostic[]>([]);
  const runs = signal<SessionRun[]>([]);
  const inputs = signal<TestInputs>(initialInputs(target));
  const quotas = signal<Quotas | null>(null);
  const quotasProblem = signal<ProblemError | null>(null);
  const versions = signal<VersionMeta[] | null>(null);
  const versionsCursor = signal<string | null>(null);
  const versionsProblem = signal<ProblemError | null>(null);
  const revisions = signal<Revision[] | null>(null);
  const revisionsProblem = signal<ProblemError | null>(null);
  /** Files: a version's exports as a compile or a refused run told them (revisions carry their own). */
  const learnedExports = signal<ReadonlyMap<number, string[]>>(new Map());

  const draft = computed(() => state.value?.draft ?? null);
  const dirty = computed(() => {
    const d = draft.value;
    if (d === null) return false;
    return source.value !== d.source || config.value.trim() !== configText(d).trim();
  });
  /** Versions with a run this session that makes them deployable (the API keeps the authority). */
  const testedVersions = computed(
    () => new Set(runs.value.filter((r) => r.ok && r.ran !== false).map((r) => r.version)),
  );
  /** What the server holds about each version's tests, as `…/versions/{n}/test-status` answered. */
  const testStatus = signal<ReadonlyMap<number, TestStatus>>(new Map());
  /** Versions a deploy of this session accepted: the API deploys only tested versions. */
  const deployedVersions = signal<ReadonlySet<number>>(new Set());
  /**
   * Versions the server holds a passing test of, whatever session ran it; a revision (or a deploy
   * that was accepted) exists only for one.
   */
  const testedOnServer = computed(() => {
    const tested = new Set(deployedVersions.value);
    for (const [version, status] of testStatus.value) if (status.tested) tested.add(version);
    for (const r of revisions.value ?? []) tested.add(r.version);
    return tested;
  });

  function remember() {
    const d = draft.value;
    if (d === null) return;
    if (dirty.value) {
      writeUnsaved(target.storageKey, { source: source.value, config: config.value, baseVersion: d.version });
    } else clearUnsaved(target.storageKey);
  }

  /** Takes a draft as the saved state; edits are replaced unless `keepEdits`. */
  function adopt(next: HookState, tag: string, keepEdits = false) {
    state.value = next;
    etag.value = tag;
    if (!keepEdits) {
      source.value = next.draft.source;
      config.value = configText(next.draft);
    }
    remember();
  }

  async function load(signalAbort?: AbortSignal) {
    try {
      const response = await lifecycle.index.$get(undefined, cancelledBy(signalAbort));
      const answer = await response.json();
      loadProblem.value = null;
      const first = state.value === null;
      // Read before adopting: adopting a clean buffer clears the stored edits.
      const unsaved = first ? readUnsaved(target.storageKey) : null;
      adopt(answer, etagOf(response, answer.draft), !first && dirty.value);
      if (first) {
        if (
          unsaved &&
          (unsaved.source !== answer.draft.source || unsaved.config !== configText(answer.draft))
        ) {
          source.value = unsaved.source;
          config.value = unsaved.config;
          restoredFrom.value = { baseVersion: unsaved.baseVersion, savedAt: unsaved.savedAt };
          remember();
        } else if (answer.draft.version === 0 && answer.draft.source === "") {
          // Nothing saved yet: start from a skeleton of the target's kind (unsaved until Save).
          source.value = target.starter;
        }
      }
    } catch (error) {
      if (signalAbort?.aborted) return;
      loadProblem.value = asProblem(error);
    }
  }

  async function loadDeclarations() {
    try {
      declarations.value = await (await target.types()).text();
      declarationsProblem.value = null;
    } catch (error) {
      declarations.value = "";
      declarationsProblem.value = asProblem(error);
    }
  }

  async function refreshQuotas() {
    try {
      quotas.value = await jsonOf(api.v1.workspaces[":ws"].quotas.$get(params({ ws: target.ws })));
      quotasProblem.value = null;
    } catch (error) {
      quotasProblem.value = asProblem(error);
    }
  }

  /** The newest page of versions, or the next page after the ones shown (`more`). */
  async function loadVersions(more = false) {
    try {
      const cursor = more && versionsCursor.value ? { cursor: versionsCursor.value } : {};
      const page = await jsonOf(lifecycle.versions.$get({ query: { limit: "50", ...cursor } }));
      versions.value = more ? [...(versions.value ?? []), ...page.items] : page.items;
      versionsCursor.value = page.nextCursor;
      versionsProblem.value = null;
    } catch (error) {
      versionsProblem.value = asProblem(error);
    }
  }

  async function loadRevisions() {
    try {
      const page = await jsonOf(lifecycle.revisions.$get({ query: { limit: "100" } }));
      revisions.value = page.items;
      revisionsProblem.value = null;
    } catch (error) {
      revisionsProblem.value = asProblem(error);
    }
  }

  /** Whether the server holds a passing test of `version` (errors leave it unknown). */
  async function loadTestStatus(version: number, signalAbort?: AbortSignal) {
    try {
      const status = await jsonOf(
        lifecycle.versions[":n"]["test-status"].$get(
          { param: { n: String(version) } },
          cancelledBy(signalAbort),
        ),
      );
      testStatus.value = new Map(testStatus.value).set(version, status);
    } catch {
      // Unknown is shown as untested; the deploy answers with the authority either way.
    }
  }

  /** Pointers and revisions after a deploy, rollback, shadow removal or reset. */
  async function refreshDeployments() {
    await Promise.all([load(), loadRevisions()]);
  }

  /**
   * Saves the buffer under If-Match. A 412 becomes a conflict (the newer draft is fetched for the
   * diff) instead of an error; every other refusal is thrown for the Save button to show.
   */
  async function save(note: string, edits = { source: source.value, config: config.value }) {
    const body = { source: edits.source, config: parsedConfig(edits.config), ...(note ? { note } : {}) };
    try {
      const response = await lifecycle.draft.$put({ json: body }, { headers: { "if-match": etag.value } });
      const answer = await response.json();
      const current = state.value;
      conflict.value = null;
      restoredFrom.value = null;
      if (!answer.noop) void loadVersions();
      saved.value = answer.noop
        ? "Nothing changed; the draft is as saved."
        : `Saved as version ${answer.version}.`;
      reformatted.value = answer.draft.source !== body.source;
      adopt(
        { draft: answer.draft, deployments: current?.deployments ?? { active: null, shadow: null } },
        etagOf(response, answer.draft),
      );
      return answer;
    } catch (error) {
      const problem = asProblem(error);
      if (problem.status !== 412) throw problem;
      const response = await lifecycle.index.$get();
      const latest = await response.json();
      state.value = latest;
      etag.value = etagOf(response, latest.draft);
      conflict.value = { theirs: latest.draft, mine: edits };
      return null;
    } finally {
      void refreshQuotas();
    }
  }

  function learnExports(version: number, names: string[]) {
    learnedExports.value = new Map(learnedExports.value).set(version, names);
  }

  function takeTheirs() {
    const c = conflict.value;
    if (!c) return;
    source.value = c.theirs.source;
    config.value = configText(c.theirs);
    conflict.value = null;
    remember();
  }

  /** Re-saves the refused edits over the newer draft (whose ETag `save` already adopted). */
  async function keepMine(note: string) {
    const c = conflict.value;
    if (!c) return null;
    return save(note, c.mine);
  }

  async function restore(version: number) {
    const response = await lifecycle.versions[":n"].restore.$post(
      { param: { n: String(version) } },
      optionalJson({ note: `Restored from version ${version}` }, { "if-match": etag.value }),
    );
    const answer = await response.json();
    const current = state.value;
    adopt(
      { draft: answer.draft, deployments: current?.deployments ?? { active: null, shadow: null } },
      etagOf(response, answer.draft),
    );
    void refreshQuotas();
    void loadVersions();
    saved.value = `Version ${version} restored as version ${answer.version}.`;
    reformatted.value = false;
    return answer;
  }

  return {
    target,
    lifecycle,
    state,
    etag,
    loadProblem,
    source,
    config,
    restoredFrom,
    conflict,
    saved,
    reformatted,
    declarations,
    declarationsProblem,
    compileReport,
    diagnostics,
    runs,
    inputs,
    quotas,
    quotasProblem,
    versions,
    versionsCursor,
    versionsProblem,
    loadVersions,
    revisions,
    revisionsProblem,
    loadRevisions,
    learnedExports,
    learnExports,
    refreshDeployments,
    draft,
    dirty,
    testedVersions,
    testStatus,
    loadTestStatus,
    deployedVersions,
    testedOnServer,
    remember,
    load,
    loadDeclarations,
    refreshQuotas,
    save,
    takeTheirs,
    keepMine,
    restore,
  };
}

export type HookStore = ReturnType<typeof createHookStore>;
