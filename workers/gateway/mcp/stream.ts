// A `tools/call` answer that becomes an event stream only when something must
// reach the client before the result: an upstream's progress or log
// notification, or a request it relays (sampling, elicitation, roots). A call
// with nothing to relay is answered as plain JSON, as cheaply as before.
// Hand-written: the SDK's transport streams only through a connected Server,
// which the hot path does without (see fastToolCall in endpoint.ts).

const encoder = new TextEncoder();
/** One JSON-RPC message as an SSE `message` event. */
export const sseEvent = (message: unknown): Uint8Array =>
  encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);

export class LazyEventStream {
  readonly response: Promise<Response>;
  #resolve: (response: Response) => void = () => undefined;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #open = false;
  #ended = false;

  /** `eager`: the client takes only a stream, so even a lone result goes on one. */
  constructor(private readonly eager: boolean) {
    this.response = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  #start(): void {
    this.#open = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      // The client went away: later messages are dropped, the call itself runs on.
      cancel: () => {
        this.#ended = true;
      },
    });
    this.#resolve(
      new Response(body, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      }),
    );
  }

  /** Sends a message ahead of the answer; false when the client can no longer receive it. */
  send(message: unknown): boolean {
    if (this.#ended) return false;
    if (!this.#open) this.#start();
    this.#controller?.enqueue(sseEvent(message));
    return true;
  }

  /** Ends with the answer: as JSON when nothing was streamed (unless eager), else as the last event. */
  finish(answer: unknown): void {
    if (!this.#open && !this.eager) {
      this.#ended = true;
      this.#resolve(Response.json(answer));
      return;
    }
    if (this.send(answer)) this.#controller?.close();
    this.#ended = true;
  }
}
