// The workspace config's `loops` (which host calls a request hook may make, per
// agent loop) and `recovery`. Like the rest of the config, both are stored as
// given; their defaults are resolved here each time a policy is read, so a
// changed default reaches every workspace that never chose a value.
import { z } from "zod";
import { DEFAULT_LIB_EXPORT } from "../files/exports";
import { LIMITS } from "../limits";
import { checkSource, LOOP_NAME_PATTERN, MAIN_LOOP } from "./pre-llm-hook";

/**
 * A lambda source with its function name spelled out: `lib/x.ts` becomes
 * `lib/x.ts:main`, anything with a `:` is returned unchanged. It does not
 * validate: policy lists are validated by the schema, and an invalid source a
 * hook passes at run time simply matches no entry.
 */
export function normaliseSource(source: string): string {
  return source.includes(":") ? source : `${source}:${DEFAULT_LIB_EXPORT}`;
}

const LambdaSource = z
  .string()
  .superRefine((source, ctx) => {
    const parsed = checkSource(source);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
  })
  .describe(
    "A deployed lib export: lib/<path>.ts or .js, optionally followed by :functionName (default main)",
  );

const ModelName = z.string().min(1).max(200);

/** A list of at most `loopPolicySources` entries, unique once `key` has spelled each out. */
const uniqueList = <T extends z.ZodType<string>>(item: T, key: (value: string) => string) =>
  z
    .array(item)
    .max(LIMITS.loopPolicySources, `At most ${LIMITS.loopPolicySources} entries.`)
    .superRefine((values, ctx) => {
      const seen = new Set<string>();
      values.forEach((value, index) => {
        const spelled = key(value);
        if (seen.has(spelled)) {
          ctx.addIssue({ code: "custom", path: [index], message: `"${spelled}" is listed twice.` });
        }
        seen.add(spelled);
      });
    });

const LoopPolicyEntry = z
  .object({
    lambda: z
      .object({
        allow: uniqueList(LambdaSource, normaliseSource)
          .optional()
          .describe(
            "The only lib exports rayrun.lambda may call; absent: any export with an active deployment",
          ),
        approve: uniqueList(LambdaSource, normaliseSource)
          .optional()
          .describe("Lib exports whose rayrun.lambda call needs a human approval first"),
      })
      .strict()
      .optional(),
    model: z
      .object({
        allow: z.boolean().optional().describe("Whether rayrun.model may be called (default true)"),
        models: uniqueList(ModelName, (name) => name)
          .optional()
          .describe("The only model names rayrun.model may request; absent: any model"),
        maxCalls: z
          .number()
          .int()
          .min(0)
          .max(LIMITS.hostModelCallsPerInvocation)
          .optional()
          .describe(
            `rayrun.model calls one hook invocation may make (default and maximum ${LIMITS.hostModelCallsPerInvocation}, limits.hostModelCallsPerInvocation)`,
          ),
        approve: z
          .boolean()
          .optional()
          .describe("Whether every rayrun.model call needs a human approval first (default false)"),
      })
      .strict()
      .optional(),
  })
  .strict();

export type LoopPolicyConfig = z.output<typeof LoopPolicyEntry>;
export type LoopsConfig = Record<string, LoopPolicyConfig>;

/** The host calls a request hook running for `loop` may make, defaults filled in. */
export interface LoopPolicy {
  loop: string;
  /** Sources spelled `lib/x.ts:fn`; `allow: null` means any deployed lib export. */
  lambda: { allow: readonly string[] | null; approve: readonly string[] };
  /** `models: null` means any model. */
  model: { allow: boolean; models: readonly string[] | null; maxCalls: number; approve: boolean };
}

const defaultPolicy = (): LoopPolicy => ({
  loop: MAIN_LOOP,
  lambda: { allow: null, approve: [] },
  model: { allow: true, models: null, maxCalls: LIMITS.hostModelCallsPerInvocation, approve: false },
});

function intersect(
  base: readonly string[] | null,
  list: readonly string[] | undefined,
): readonly string[] | null {
  if (list === undefined) return base;
  const unique = [...new Set(list)];
  return base === null ? unique : unique.filter((entry) => base.includes(entry));
}

function union(base: readonly string[], list: readonly string[] | undefined): readonly string[] {
  return list === undefined ? base : [...new Set([...base, ...list])];
}

/**
 * `base` narrowed by `entry`: each field can only get stricter, so an entry
 * stored before main became stricter still cannot widen it at run time.
 */
function narrow(base: LoopPolicy, entry: LoopPolicyConfig | undefined, loop: string): LoopPolicy {
  const model = entry?.model;
  return {
    loop,
    lambda: {
      allow: intersect(base.lambda.allow, entry?.lambda?.allow?.map(normaliseSource)),
      approve: union(base.lambda.approve, entry?.lambda?.approve?.map(normaliseSource)),
    },
    model: {
      allow: base.model.allow && (model?.allow ?? true),
      models: intersect(base.model.models, model?.models),
      maxCalls: Math.min(base.model.maxCalls, model?.maxCalls ?? LIMITS.hostModelCallsPerInvocation),
      approve: base.model.approve || (model?.approve ?? false),
    },
  };
}

// Own entries only: a loop named "constructor" must not find Object.prototype's.
const entryOf = (loops: LoopsConfig, loop: string): LoopPolicyConfig | undefined =>
  Object.hasOwn(loops, loop) ? loops[loop] : undefined;

/**
 * The policy in force for `loop` ("main" or an inner loop's name): main's entry
 * over the defaults, then, for an inner loop, its own entry narrowing main's.
 * A loop without an entry gets main's policy.
 */
export function loopPolicy(config: { loops?: LoopsConfig }, loop: string): LoopPolicy {
  const loops = config.loops ?? {};
  const main = narrow(defaultPolicy(), entryOf(loops, MAIN_LOOP), MAIN_LOOP);
  return loop === MAIN_LOOP ? main : narrow(main, entryOf(loops, loop), loop);
}

type Widening = { path: (string | number)[]; message: string };

/** Where an inner loop's entry would allow more than main's policy does. */
function widenings(main: LoopPolicy, inner: LoopPolicyConfig): Widening[] {
  const found: Widening[] = [];
  const allowed = main.lambda.allow;
  if (allowed !== null) {
    inner.lambda?.allow?.forEach((source, index) => {
      const spelled = normaliseSource(source);
      if (!allowed.includes(spelled)) {
        found.push({
          path: ["lambda", "allow", index],
          message: `main's lambda.allow does not list "${spelled}"; a loop can only narrow it.`,
        });
      }
    });
  }
  const model = inner.model;
  if (model?.allow === true && !main.model.allow) {
    found.push({
      path: ["model", "allow"],
      message: "main does not allow model calls (model.allow is false); a loop cannot allow them.",
    });
  }
  const models = main.model.models;
  if (models !== null) {
    model?.models?.forEach((name, index) => {
      if (!models.includes(name)) {
        found.push({
          path: ["model", "models", index],
          message: `main's model.models does not list "${name}"; a loop can only narrow it.`,
        });
      }
    });
  }
  if (model?.maxCalls !== undefined && model.maxCalls > main.model.maxCalls) {
    found.push({
      path: ["model", "maxCalls"],
      message: `main allows ${main.model.maxCalls} model calls per invocation; a loop cannot allow more.`,
    });
  }
  if (model?.approve === false && main.model.approve) {
    found.push({
      path: ["model", "approve"],
      message: "main requires an approval for every model call; a loop cannot turn that off.",
    });
  }
  return found;
}

const LoopName = z.string().regex(LOOP_NAME_PATTERN, "Loop names are 1–64 letters, digits, _, . or -.");

export const LoopsSchema = z
  .record(LoopName, LoopPolicyEntry)
  // Rules across loops, each reported at the field of the loop that breaks it.
  .superRefine((loops, ctx) => {
    const names = Object.keys(loops);
    if (names.length > LIMITS.loopPolicies) {
      ctx.addIssue({
        code: "custom",
        message: `At most ${LIMITS.loopPolicies} loops may have a policy; this sets ${names.length}.`,
      });
    }
    const main = loopPolicy({ loops }, MAIN_LOOP);
    for (const name of names) {
      const entry = entryOf(loops, name);
      if (name === MAIN_LOOP || entry === undefined) continue;
      for (const { path, message } of widenings(main, entry)) {
        ctx.addIssue({ code: "custom", path: [name, ...path], message });
      }
    }
  })
  .describe(
    `What a request hook may call through rayrun.lambda and rayrun.model, by loop name ("main" or an inner loop's). "main" is the default of every loop; an inner loop's entry may only narrow it. At most ${LIMITS.loopPolicies} loops (limits.loopPolicies)`,
  );

export const RecoverySchema = z
  .object({
    structuralRetries: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.structuralRetries)
      .optional()
      .describe(
        `Times a request hook is rerun in a fresh sandbox after a host-call timeout, a cancelled host call or an engine failure; never after a throw or an invalid return (default 0, at most ${LIMITS.structuralRetries}, limits.structuralRetries)`,
      ),
  })
  .strict()
  .describe("How a failed request hook is retried");

export type RecoveryConfig = z.output<typeof RecoverySchema>;

/** Reruns of a request hook after a structural failure; 0 unless the config sets more. */
export function structuralRetries(config: { recovery?: RecoveryConfig }): number {
  return Math.min(config.recovery?.structuralRetries ?? 0, LIMITS.structuralRetries);
}
