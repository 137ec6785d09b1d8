// Resumability (SEP-1699) needs somewhere to keep what was sent on each SSE
// stream, so a client that reconnects with Last-Event-ID gets what it missed.
// One store per session: event ids are plain counters, and replay can never
// cross into another session's streams.
import type { EventId, EventStore, StreamId } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Enough for any conformance run; bounds memory for a session that is never closed. */
const MAX_EVENTS = 1000;

export class InMemoryEventStore implements EventStore {
  // A Map iterates in insertion order, which is the order events were sent.
  readonly #events = new Map<EventId, { streamId: StreamId; message: JSONRPCMessage }>();
  #lastId = 0;

  storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    const eventId = String(++this.#lastId);
    this.#events.set(eventId, { streamId, message });
    if (this.#events.size > MAX_EVENTS) {
      const oldest = this.#events.keys().next();
      if (!oldest.done) this.#events.delete(oldest.value);
    }
    return Promise.resolve(eventId);
  }

  // Lets the transport refuse unknown ids (400) and a second live connection to
  // the same stream (409) before it starts replaying.
  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const last = this.#events.get(lastEventId);
    if (!last) throw new Error(`Unknown event id ${lastEventId}`);
    let after = false;
    // Iterates the live map on purpose: events stored while `send` awaits are
    // replayed too, as the transport registers the resumed stream only after
    // the replay (and skips anything the replay already delivered).
    for (const [eventId, { streamId, message }] of this.#events) {
      if (eventId === lastEventId) after = true;
      else if (after && streamId === last.streamId) await send(eventId, message);
    }
    return last.streamId;
  }
}
