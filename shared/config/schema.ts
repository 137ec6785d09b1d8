// The workspace config document (`GET/PUT /v1/workspaces/{ws}/config`). Keys the
// product's contract spells in snake_case keep that spelling; everything else is camelCase.
import { z } from "zod";
import { LIMITS } from "../limits";
import { LoopsSchema, type LoopsConfig, RecoverySchema, type RecoveryConfig } from "./loops";
import { PreLlmHookSchema, type PreLlmHookConfig } from "./pre-llm-hook";
import { ProvidersSchema, type ProvidersConfig } from "./providers";

/** Whether captured details of hook runs are stored (with the service's payload capture on). */
export const DETAIL_POLICIES = ["capture", "none"] as const;
export type DetailPolicy = (typeof DETAIL_POLICIES)[number];

export const RETENTION_DAYS = {
  details: { min: 1, max: 90, default: 7 },
  logs: { min: 1, max: 365, default: 30 },
} as const;

const days = (bounds: { min: number; max: number }) => z.number().int().min(bounds.min).max(bounds.max);

const outputTokens = z.number().int().positive().max(10_000_000);

export type RateTier = (typeof LIMITS.rateLimitTiersPerMinute)[number];

const rateTier = (route: string, fallback: number) =>
  z
    .literal(LIMITS.rateLimitTiersPerMinute, {
      error: `Requests per minute must be one of ${LIMITS.rateLimitTiersPerMinute.join(", ")}.`,
    })
    .optional()
    .describe(`Requests per minute one key may send to ${route} (default ${fallback})`);

/**
 * What a client may PUT. Stored as given (defaults are filled when read, so a
 * changed default applies to every workspace that never chose a value).
 * `plugins`, `limits` and `code_execution` are accepted and stored here; the
 * features that use them validate them further.
 */
export const WorkspaceConfigDocument = z
  .object({
    detailPolicy: z
      .enum(DETAIL_POLICIES)
      .optional()
      .describe(
        '"capture" stores run details for services with payload capture on; "none" never stores them',
      ),
    retention: z
      .object({
        detailsDays: days(RETENTION_DAYS.details).optional().describe("Days captured run details are kept"),
        logsDays: days(RETENTION_DAYS.logs).optional().describe("Days run records (metadata) are kept"),
      })
      .strict()
      .optional(),
    pre_llm_hook: PreLlmHookSchema.optional(),
    loops: LoopsSchema.optional().describe(
      `Per-loop policy for the request hook's host calls: { "<loop>": { lambda?: { allow?, approve? }, model?: { allow?, models?, maxCalls?, approve? } } }. "main" is every loop's default; an inner loop may only narrow it (allow lists intersect, approval lists add up). At most ${LIMITS.loopPolicies} loops and ${LIMITS.loopPolicySources} entries per list`,
    ),
    recovery: RecoverySchema.optional().describe(
      "Request-hook retries: structuralRetries reruns the hook after a host-call timeout, a cancelled host call or an engine failure (default 0)",
    ),
    plugins: z
      .array(z.string().min(1).max(200))
      .max(100)
      .refine((names) => new Set(names).size === names.length, "Plugin names must be unique")
      .optional()
      .describe(
        "Plugin names (plugins/<name>.ts) in the order they run; unlisted plugins run after, alphabetically",
      ),
    limits: z.object({ execution_timeout_ms: z.number().int().positive().optional() }).strict().optional(),
    code_execution: z.object({ sys_lambda: z.boolean().optional() }).strict().optional(),
    providers: ProvidersSchema.optional(),
    rateLimits: z
      .object({
        mcpPerMinute: rateTier("/mcp", LIMITS.mcpRequestsPerMinute),
        llmPerMinute: rateTier("/llm", LIMITS.llmRequestsPerMinute),
      })
      .strict()
      .optional()
      .describe("Per-key request rates on the gateway; past them requests answer 429 with Retry-After"),
    modelOutputLimits: z
      .object({
        default: outputTokens
          .optional()
          .describe("Ceiling for models the table does not know, or requests without a model"),
        models: z
          .record(z.string().min(1).max(200), outputTokens)
          .refine((models) => Object.keys(models).length <= 200, "At most 200 models")
          .optional()
          .describe("Output ceilings by model (or family) name; these win over the built-in table"),
      })
      .strict()
      .optional()
      .describe("Where chat.params' maxOutputTokens is clamped"),
  })
  .strict();

export type WorkspaceConfigInput = z.output<typeof WorkspaceConfigDocument>;

/** The config in force: the stored document with defaults filled in. */
export interface WorkspaceConfig {
  detailPolicy: DetailPolicy;
  retention: { detailsDays: number; logsDays: number };
  pre_llm_hook?: PreLlmHookConfig;
  /** As stored; `loopPolicy()` resolves a loop's policy with its defaults. */
  loops?: LoopsConfig;
  /** As stored; `structuralRetries()` resolves its default. */
  recovery?: RecoveryConfig;
  plugins?: string[];
  limits?: { execution_timeout_ms?: number };
  code_execution?: { sys_lambda?: boolean };
  providers?: ProvidersConfig;
  rateLimits: { mcpPerMinute: RateTier; llmPerMinute: RateTier };
  modelOutputLimits?: ModelOutputLimits;
}

export interface ModelOutputLimits {
  default?: number;
  models?: Record<string, number>;
}

export function effectiveConfig(document: WorkspaceConfigInput): WorkspaceConfig {
  return {
    ...document,
    detailPolicy: document.detailPolicy ?? "capture",
    retention: {
      detailsDays: document.retention?.detailsDays ?? RETENTION_DAYS.details.default,
      logsDays: document.retention?.logsDays ?? RETENTION_DAYS.logs.default,
    },
    rateLimits: {
      mcpPerMinute: document.rateLimits?.mcpPerMinute ?? LIMITS.mcpRequestsPerMinute,
      llmPerMinute: document.rateLimits?.llmPerMinute ?? LIMITS.llmRequestsPerMinute,
    },
  };
}

export const DEFAULT_CONFIG: WorkspaceConfig = effectiveConfig({});

/**
 * The config in force for a stored document's JSON text (null: never written).
 * A document that no longer parses (a later feature tightened a field) yields
 * the defaults rather than failing every reader.
 */
export function configFromDocument(text: string | null): WorkspaceConfig {
  if (text === null) return DEFAULT_CONFIG;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    raw = undefined;
  }
  const parsed = WorkspaceConfigDocument.safeParse(raw);
  if (parsed.success) return effectiveConfig(parsed.data);
  console.error("a stored workspace config does not parse; using the defaults");
  return DEFAULT_CONFIG;
}
