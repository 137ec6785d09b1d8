// The `_meta` keys the gateway adds to the results it answers, so Direct Mode
// and Code Mode name a result's request the same way.

/** The `_meta` key every tool result carries its request id in (the logs' correlation id). */
export const REQUEST_ID_META_KEY = "rayrun/requestId";

export const withRequestId = <R extends { _meta?: Record<string, unknown> }>(
  result: R,
  requestId: string,
): R => ({
  ...result,
  _meta: { ...result._meta, [REQUEST_ID_META_KEY]: requestId },
});
