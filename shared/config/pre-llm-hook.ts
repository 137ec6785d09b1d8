// The workspace config's `pre_llm_hook` and the
// helpers the LLM path uses to decide whether and how long the hook runs.
// Validation follows the documented rules exactly; the document is stored as given
// (no normalising `all` into a list, no filling in defaults).
import { z } from "zod";
import { DEFAULT_LIB_EXPORT } from "../files/exports";
import { parseFilePath } from "../files/paths";
import { LIMITS } from "../limits";
import { err, ok, type Result } from "../result";

export const HOOK_SCOPES = ["all", "main", "loops"] as const;
export type HookScope = (typeof HOOK_SCOPES)[number];

/** The loop name of the main conversation; inner loops have any other name. */
export const MAIN_LOOP = "main";

/** Inner-loop names: the hook may target loops that do not exist yet, so only the spelling is checked. */
export const LOOP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
/** At most this many named loops in one hook's target list. */
export const HOOK_LOOPS_MAX = 100;
// ASCII identifiers only; exports with other names cannot be targeted.
const EXPORT_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The file and export a source names, or the message saying why it names none. */
export type ParsedSource = Result<{ path: string; exportName: string }, string>;

// The path follows the workspace file rules, so a source names exactly the
// files that can exist (the file itself may be deployed later). Loop policies
// check their lambda sources with it too.
export function checkSource(source: string): ParsedSource {
  const colon = source.indexOf(":");
  const path = colon === -1 ? source : source.slice(0, colon);
  const exportName = colon === -1 ? DEFAULT_LIB_EXPORT : source.slice(colon + 1);
  const file = parseFilePath(path);
  if (!file.ok) return err(file.error);
  if (file.value.kind !== "lib") {
    return err('The source must be a lambda under lib/ (e.g. "lib/request-policy.ts").');
  }
  if (!EXPORT_NAME.test(exportName)) {
    return err("The function name after : must be a JavaScript identifier.");
  }
  return ok({ path, exportName });
}

/**
 * The file and named export of a validated `source` (`lib/x.ts:transform`;
 * no function name means `main`). Throws on a source the schema would refuse.
 */
export function parseHookSource(source: string): { path: string; exportName: string } {
  const parsed = checkSource(source);
  if (!parsed.ok) throw new Error(`Invalid pre_llm_hook source "${source}": ${parsed.error}`);
  return parsed.value;
}

const HookSource = z
  .string()
  .superRefine((source, ctx) => {
    const parsed = checkSource(source);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
  })
  .describe("Workspace .js/.ts file under lib/, optionally followed by :functionName (default main)");

const LoopName = z.string().regex(LOOP_NAME_PATTERN, "Loop names are 1–64 letters, digits, _, . or -.");

const LoopList = z
  .array(LoopName)
  .min(1, "loops must name at least one loop.")
  .max(HOOK_LOOPS_MAX)
  .superRefine((loops, ctx) => {
    const seen = new Set<string>();
    loops.forEach((name, index) => {
      if (name === MAIN_LOOP) {
        ctx.addIssue({
          code: "custom",
          path: [index],
          message: 'loops cannot contain "main"; set include_main: true to also run for main.',
        });
      } else if (seen.has(name)) {
        ctx.addIssue({ code: "custom", path: [index], message: `Loop "${name}" is listed twice.` });
      }
      seen.add(name);
    });
  });

export const PreLlmHookSchema = z
  .object({
    source: HookSource,
    scope: z
      .enum(HOOK_SCOPES)
      .describe('"all": main and every inner loop, including future ones; "main"; "loops": the named ones'),
    loops: LoopList.optional().describe(
      'Inner loops by name; required with, and only allowed with, scope "loops"',
    ),
    include_main: z.boolean().optional().describe('Also run for main; only with scope "loops"'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Stored as given; capped by limits.execution_timeout_ms when the hook runs"),
  })
  .strict()
  // Rules between fields, each reported at the field that breaks it.
  .superRefine((hook, ctx) => {
    if (hook.scope === "loops") {
      if (hook.loops === undefined) {
        ctx.addIssue({ code: "custom", path: ["loops"], message: 'loops is required with scope "loops".' });
      }
      return;
    }
    if (hook.loops !== undefined) {
      ctx.addIssue({ code: "custom", path: ["loops"], message: 'loops is only allowed with scope "loops".' });
    }
    if (hook.include_main !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["include_main"],
        message: 'include_main is only allowed with scope "loops".',
      });
    }
  })
  .describe("Request hook on the LLM path");

export type PreLlmHookConfig = z.output<typeof PreLlmHookSchema>;

/** Whether the hook runs for a call of loop `loopName` ("main" or an inner loop's name). */
export function hookAppliesToLoop(hook: PreLlmHookConfig, loopName: string): boolean {
  if (hook.scope === "all") return true;
  if (loopName === MAIN_LOOP) return hook.scope === "main" || hook.include_main === true;
  return hook.scope === "loops" && (hook.loops ?? []).includes(loopName);
}

/**
 * The time one hook invocation may take: its `timeout_ms` (default
 * `LIMITS.requestHookTimeoutMs`), capped by the workspace's
 * `limits.execution_timeout_ms`. No platform default exists for the latter
 * yet, so an unset cap falls back to the hook default: a large `timeout_ms`
 * never runs unbounded just because the workspace left the cap out.
 */
export function effectiveHookTimeoutMs(
  hook: PreLlmHookConfig,
  config: { limits?: { execution_timeout_ms?: number } },
): number {
  const requested = hook.timeout_ms ?? LIMITS.requestHookTimeoutMs;
  const cap = config.limits?.execution_timeout_ms ?? LIMITS.requestHookTimeoutMs;
  return Math.min(requested, cap);
}
