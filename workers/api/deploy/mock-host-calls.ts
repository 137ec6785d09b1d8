// The file test console's stand-ins for the host capabilities (`rayrun.lambda`,
// `rayrun.model`): the request body lists the answers, and the hook's host
// calls take them in order. A console run never reaches a deployed lambda or a
// provider, so testing a hook costs nothing and depends on nothing but its body.
import { z } from "zod";
import { canonicalJson } from "../../../shared/canonical-json";
import type { Json } from "../../../shared/json";
import { NAMESPACE } from "../../../shared/llm/hook-extensions";
import type { HostCall } from "../../../shared/sandbox";

/** The capabilities a hook's `rayrun` namespace calls on the host. */
export const HOST_CALL_NAMES = ["lambda", "model"] as const;
export const MAX_HOST_CALL_MOCKS = 50;
/** Longest JSON of an expected or actual argument quoted in a mismatch message. */
const QUOTED_CHARS = 200;

const HostCallMock = z
  .object({
    name: z
      .enum(HOST_CALL_NAMES)
      .describe("The capability this mock answers: `lambda` (rayrun.lambda) or `model` (rayrun.model)"),
    args: z
      .json()
      .optional()
      .describe(
        "The argument the hook must pass (compared as JSON, key order aside); any argument when omitted",
      ),
    result: z.json().optional().describe("What the call resolves to (any JSON); give this or `error`"),
    error: z
      .string()
      .min(1)
      .max(1000)
      .optional()
      .describe("The call rejects with an Error with this message; give this or `result`"),
  })
  .strict()
  .refine((m) => (m.result === undefined) !== (m.error === undefined), {
    message: "A mock gives either `result` or `error`, exactly one of them.",
  })
  // Repeated here: the document drops the descriptions of JSON-valued fields (args, result).
  .describe(
    "One mock: `name`, optional `args` (the hook's whole argument must equal it as JSON; any argument when omitted), and either `result` (any JSON the call resolves to) or `error` (the message the call rejects with)",
  );

export const HostCallMocks = z
  .array(HostCallMock)
  .max(MAX_HOST_CALL_MOCKS)
  .describe(
    `Mock answers for the hook's rayrun.lambda and rayrun.model calls, taken in order: the n-th call gets the n-th mock (at most ${MAX_HOST_CALL_MOCKS}). A call with no mock left, or that does not match its mock, rejects. Nothing real is called.`,
  );

export type HostCallMock = z.output<typeof HostCallMock>;

/** How the run used the mocks, reported with the console's answer. */
export interface MockUsage {
  /** Mocks that answered a call. */
  used: number;
  /** Mocks no call reached. */
  unused: number;
  /** Calls refused: no mock was left, or the call did not match its mock. */
  unmatched: number;
}

const quoted = (value: Json): string => {
  const text = canonicalJson(value);
  return text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text;
};

/** Why call `n` (1-based) does not match `mock`, or null when it does. */
function mismatch(n: number, name: string, input: Json, mock: HostCallMock): string | null {
  const where = `${NAMESPACE}.${name} call ${n} does not match hostCalls[${n - 1}]`;
  if (mock.name !== name) return `${where}: expected a ${JSON.stringify(mock.name)} call`;
  if (mock.args !== undefined && canonicalJson(mock.args) !== canonicalJson(input)) {
    return `${where}: expected args ${quoted(mock.args)} got ${quoted(input)}`;
  }
  return null;
}

/**
 * Host capabilities that answer from `mocks`, in call order. The n-th call
 * takes the n-th mock whether or not it matches, so one stray call does not
 * shift every answer after it.
 */
export function mockHostCalls(mocks: readonly HostCallMock[]): {
  hostCalls: Record<string, HostCall>;
  usage(): MockUsage;
} {
  let calls = 0;
  let used = 0;
  let unmatched = 0;
  const refuse = (message: string) => {
    unmatched += 1;
    return Promise.reject(new Error(message));
  };
  const answer =
    (name: string): HostCall =>
    (input) => {
      calls += 1;
      const mock = mocks[calls - 1];
      if (mock === undefined) {
        return refuse(
          `${NAMESPACE}.${name} call ${calls} has no mock: add { "name": ${JSON.stringify(name)}, "result": … } to hostCalls`,
        );
      }
      const wrong = mismatch(calls, name, input, mock);
      if (wrong !== null) return refuse(wrong);
      used += 1;
      return mock.error === undefined
        ? Promise.resolve(mock.result ?? null)
        : Promise.reject(new Error(mock.error));
    };
  return {
    hostCalls: Object.fromEntries(HOST_CALL_NAMES.map((name) => [name, answer(name)])),
    usage: () => ({ used, unused: Math.max(0, mocks.length - calls), unmatched }),
  };
}
