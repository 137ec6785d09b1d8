// A response body that ends when its source goes quiet for too long. Written
// by hand: Streams have no idle bound, and a timer reset per chunk needs the
// pull side. The timer runs only while a read waits on the source, so a slow
// client (backpressure) is never mistaken for a stalled provider.

/** What to do when the source stalls: the bytes to send last (then the stream closes), or null to error it. */
export type OnIdle = () => Uint8Array | null;

export function withIdleTimeout(
  source: ReadableStream<Uint8Array>,
  idleMs: number,
  onIdle: OnIdle,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const idle = new Promise<"idle">((resolve) => {
        timer = setTimeout(() => resolve("idle"), idleMs);
      });
      try {
        const next = await Promise.race([reader.read(), idle]);
        if (next === "idle") {
          // Stops the provider's stream too: nobody will read the rest.
          reader.cancel("idle timeout").catch(() => undefined);
          const last = onIdle();
          if (last === null) {
            controller.error(new Error(`The provider sent nothing for ${idleMs} ms.`));
            return;
          }
          controller.enqueue(last);
          controller.close();
          return;
        }
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
