// Deferring work past the I/O a Worker has ready: the warm pool between two
// session builds, run records after a response.
//
// A 0 ms timer is ready at once, and workerd runs ready work before it polls
// for network events, so work queued that way could still run ahead of a
// request that arrived meanwhile (measured in the closed-loop gateway bench:
// the request right after a hooked call waited for both of its refill builds,
// +20 to +26 ms, instead of at most one, +7 to +8 ms). A timer that is not yet
// due lets the runtime poll first.

/** Resolves on a later turn of the event loop, once pending network events have been taken in. */
export const laterTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));
