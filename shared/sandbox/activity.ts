// Requests in flight in this isolate, so warm-pool refills (pool.ts) can keep
// out of their way. A session build is several ms of synchronous CPU; started
// at any await of a request in flight (its Durable Object round trip, its
// upstream call), it holds that request up for the whole build. Refills
// therefore build while no request is in flight, unless a code is down to
// fewer sessions than one call takes.

/** What the warm pool asks before a build. */
export interface Activity {
  /** True while at least one request is being handled. */
  readonly busy: boolean;
  /** Resolves once no request is being handled (at once when none is). */
  quiet(): Promise<void>;
}

export class RequestActivity implements Activity {
  #inFlight = 0;
  /** One promise per busy period, however many wait on it (waiters may give up on it). */
  #quiet: PromiseWithResolvers<void> | undefined;

  get busy(): boolean {
    return this.#inFlight > 0;
  }

  quiet(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    this.#quiet ??= Promise.withResolvers<void>();
    return this.#quiet.promise;
  }

  /** Counts `work` as a request in flight until it settles. */
  async track<T>(work: () => T | Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await work();
    } finally {
      this.#inFlight--;
      if (this.#inFlight === 0 && this.#quiet) {
        this.#quiet.resolve();
        this.#quiet = undefined;
      }
    }
  }
}

/** The isolate's requests: the gateway's fetch handler counts each one. */
export const isolateRequests = new RequestActivity();
