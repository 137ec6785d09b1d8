// A Durable Object's input gate lets other requests in while it awaits D1 or a
// fetch, so operations that read state, await I/O and then write state run one
// at a time through this promise chain.
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled; one failure does not block the rest. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
