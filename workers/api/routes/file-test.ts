// The workspace file test console: `POST …/files/{path}/test` runs one
// exported function (lib) or hook (plugin) of a version with `input` as its
// single argument, in a fresh sandbox, and stores the run like an adapter's
// (a completed run makes the version deployable; its details are stored only
// under the workspace's detail policy). It runs as production
// does: on the async engine, with the `rayrun` namespace request hooks and
// plugins get, the same JSON rules, `chat.params` seeing unset fields as
// undefined, `tool` read the way deploy reads it (its definitions as JSON,
// `execute` left in the sandbox; answered decoded), and the kind's time bound. Only its host
// calls differ: `rayrun.lambda` and `rayrun.model` answer from the body's
// `hostCalls` mocks, so a test never runs a deployed lambda or calls a provider.
import { Hono } from "hono";
import { z } from "zod";
import { fileTestDetails } from "../deploy/test-run-details";
import { HostCallMocks, mockHostCalls } from "../deploy/mock-host-calls";
import { storeTestRun } from "../deploy/test-runs";
import { DEFAULT_LIB_EXPORT, exportPath } from "../../../shared/files/exports";
import type { WorkspaceFile } from "../../../shared/files/paths";
import { ProblemException } from "../../../shared/http/problem";
import { readWorkspaceConfig } from "../../../shared/config";
import { FUEL_PER_MS } from "../../../shared/llm/host-calls";
import { REQUEST_HOOK_EXTENSIONS } from "../../../shared/llm/hook-extensions";
import { LIMITS } from "../../../shared/limits";
import { CHAT_PARAMS_EXTENSION } from "../../../shared/plugins/chat-params";
import { pluginToolDefsExtension } from "../../../shared/plugins/tool-sandbox";
import type { InvocationReport, ModuleReturn, PreludeExtension } from "../../../shared/sandbox";
import { runModuleExport } from "../../../shared/sandbox";
import { ok } from "../../../shared/result";
import { decodedToolDefinitions } from "../plugins/tool-definitions";
import { compileWorkspaceFile } from "../compiler";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { HookLogAnswer } from "../lifecycle/answers";
import { operation, shaped } from "../openapi/describe";
import { compileVersion, loadVersion, resolveFileTarget } from "../targets";
import type { ApiEnv } from "../types";

/** Plugin hooks whose call the production path wraps in an extension of its own. */
const HOOK_EXTENSIONS: Readonly<Record<string, readonly PreludeExtension[]>> = {
  "chat.params": [CHAT_PARAMS_EXTENSION],
  tool: [pluginToolDefsExtension],
};

const FileTestRequest = z
  .object({
    export: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(`lib files: the exported function to run; "${DEFAULT_LIB_EXPORT}" when omitted`),
    hook: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("plugin files: the hook to run (tool, chat.params, tool.execute.before, tool.execute.after)"),
    input: z.json().describe("The function's single argument"),
    hostCalls: HostCallMocks.optional(),
    version: z.number().int().min(1).optional().describe("The version to test; the draft's when omitted"),
  })
  .strict();

type TestBody = z.output<typeof FileTestRequest>;

/** A `tool` run with its definitions as the plugin wrote them, rather than in the sandbox's wire format. */
function withDecodedTools(report: InvocationReport<ModuleReturn>): InvocationReport<ModuleReturn> {
  if (!report.outcome.ok) return report;
  const value = decodedToolDefinitions(report.outcome.value.value);
  return { ...report, outcome: ok({ ...report.outcome.value, ...(value === undefined ? {} : { value }) }) };
}

const refuse = (detail: string): never => {
  throw new ProblemException({ code: "invalid_request", detail });
};

/** The function the body names, in the vocabulary of the file's kind. */
function chosenFunction(file: WorkspaceFile, body: TestBody): { field: "export" | "hook"; name: string } {
  if (file.kind === "lib") {
    if (body.hook !== undefined) refuse("A lib file runs an exported function: send `export`, not `hook`.");
    return { field: "export", name: body.export ?? DEFAULT_LIB_EXPORT };
  }
  if (body.export !== undefined) refuse("A plugin runs one of its hooks: send `hook`, not `export`.");
  return {
    field: "hook",
    name: body.hook ?? refuse("Name the plugin hook to run in `hook` (e.g. chat.params)."),
  };
}

const FileTestAnswer = z.object({
  id: z.string().describe("The run record's id"),
  version: z.number().int().describe("The version that ran"),
  export: z.string().optional().describe("lib files: the function that ran"),
  hook: z.string().optional().describe("plugins: the hook that ran"),
  ok: z.boolean().describe("false when the code threw or failed; the run still answers 200"),
  value: z.unknown().optional().describe("ok: what the function returned"),
  code: z.string().optional().describe("Not ok: the failure's stable code"),
  message: z.string().optional(),
  engineFault: z.boolean().optional(),
  logs: z.array(HookLogAnswer),
  hostCalls: z.object({ used: z.number().int(), unused: z.number().int(), unmatched: z.number().int() }),
  fuelUsed: z.number(),
  durationMs: z.number(),
});

export const fileTestRoutes = new Hono<ApiEnv>().post(
  "/test",
  operation({
    summary:
      "Test console: run an exported function (lib) or hook (plugin) with `input`; recorded with the version",
    ok: { "200": { description: "The run, including `ok: false` failures", schema: FileTestAnswer } },
    problems: [404, 409, 422, 429],
  }),
  requireScope("hooks:write"),
  ...jsonBody(FileTestRequest),
  async (c) => {
    const body = c.req.valid("json");
    const t = await resolveFileTarget(c);
    const chosen = chosenFunction(t.file, body);
    const { head, row, config } = await loadVersion(c, t, body.version);
    const compiled = await compileVersion(c, () =>
      compileWorkspaceFile({ file: t.file, source: row.source, config }),
    );
    if (!compiled.exports.includes(chosen.name)) {
      throw new ProblemException({
        code: "invalid_request",
        detail: `Version ${row.number} of ${t.file.path} has no ${chosen.field === "export" ? "exported function" : "hook"} ${JSON.stringify(chosen.name)}; it has ${compiled.exports.join(", ")}.`,
        extensions: { [chosen.field]: chosen.name, available: compiled.exports },
      });
    }
    const requestId = crypto.randomUUID();
    const call = {
      code: compiled.code,
      exportPath: exportPath(t.file.kind, chosen.name),
      input: body.input,
      nowMs: Date.now(),
      seed: requestId,
    };
    const timeoutMs = t.file.kind === "lib" ? LIMITS.requestHookTimeoutMs : LIMITS.pluginHookTimeoutMs;
    const workspaceConfig = await readWorkspaceConfig(c.env.DB, t.workspaceUid);
    const mocks = mockHostCalls(body.hostCalls ?? []);
    const ran = await runModuleExport({
      ...call,
      extensions: [
        ...REQUEST_HOOK_EXTENSIONS,
        ...(t.file.kind === "plugin" ? (HOOK_EXTENSIONS[chosen.name] ?? []) : []),
      ],
      hostCalls: mocks.hostCalls,
      fuel: timeoutMs * FUEL_PER_MS,
      moduleFuel: timeoutMs * FUEL_PER_MS,
    });
    const report = t.file.kind === "plugin" && chosen.name === "tool" ? withDecodedTools(ran) : ran;
    const { outcome } = report;
    const run = {
      [chosen.field]: chosen.name,
      ok: outcome.ok,
      ...(outcome.ok ? outcome.value : outcome.error),
      logs: report.logs,
      hostCalls: mocks.usage(),
      fuelUsed: report.fuelUsed,
      durationMs: report.durationMs,
    };
    const principal = c.get("principal");
    const id = await storeTestRun(c.var.db, {
      workspaceUid: t.workspaceUid,
      target: t.target,
      generation: head.generation,
      version: row.number,
      stage: chosen.name,
      ok: outcome.ok,
      code: outcome.ok ? null : outcome.error.code,
      // Any completed run is a valid outcome for a file; a `hook_*` failure is not.
      counts: outcome.ok,
      actor: principal.actor,
      keyId: principal.keyId,
      // A file has no service: like its production records (request hooks, plugins), only the
      // workspace's detail policy decides whether its details are stored.
      details: fileTestDetails(body.input, report),
      capture: { payloadCapture: true, detailPolicy: workspaceConfig.detailPolicy },
    });
    return c.json(shaped(FileTestAnswer, { id, version: row.number, ...run }));
  },
);
