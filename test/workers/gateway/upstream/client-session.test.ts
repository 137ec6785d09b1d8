// The session ids the gateway issues carry the client's relayable
// capabilities; relay ids carry where a client's answer goes. Both are read
// back by any isolate, so both must survive the round trip and refuse garbage.
import { describe, expect, it } from "vitest";
import {
  isIssuedSession,
  issueSessionId,
  relayCapabilities,
  sessionCapabilities,
  sessionKey,
} from "../../../../workers/gateway/upstream/client-session";
import { parseRelayId, relayId } from "../../../../workers/gateway/upstream/relay-id";

/** The MCP session id alphabet, and the length the gateway accepts from clients. */
const SESSION_ID = /^[\x21-\x7e]{1,256}$/;

describe("issued session ids", () => {
  it("carry the sampling, elicitation and roots capabilities a client declared, and nothing else", () => {
    const declared = {
      sampling: { tools: {} },
      elicitation: { form: {} },
      roots: { listChanged: true },
      experimental: { x: {} },
    };
    const id = issueSessionId(relayCapabilities(declared));
    expect(id).toMatch(SESSION_ID);
    expect(isIssuedSession(id)).toBe(true);
    expect(sessionCapabilities(id)).toEqual({
      sampling: { tools: {} },
      elicitation: { form: {} },
      roots: { listChanged: true },
    });
  });

  it("a client that declared none gets a plain id that relays nothing; two ids never share a key", () => {
    const a = issueSessionId({});
    const b = issueSessionId({});
    expect(sessionCapabilities(a)).toEqual({});
    expect(sessionKey(a)).not.toBe(sessionKey(b));
    expect(sessionKey(issueSessionId({ roots: {} }))).toMatch(/^g1\.[A-Za-z0-9_-]{22}$/);
  });

  it("capabilities too large for the id are kept by name, so the id stays a valid session id", () => {
    const big = { sampling: { note: "x".repeat(500) }, elicitation: { form: {}, url: {} } };
    const id = issueSessionId(relayCapabilities(big));
    expect(id).toMatch(SESSION_ID);
    expect(sessionCapabilities(id)).toEqual({ sampling: {}, elicitation: {} });
  });

  it("a client's own id, or a forged one that does not decode, relays nothing", () => {
    for (const id of [
      undefined,
      "client-own-id",
      "g1.abc",
      "g1.abc.%%%",
      `g1.abc.${btoa("[1,2]")}`,
      "g1.abc.bm90IGpzb24",
    ]) {
      expect(sessionCapabilities(id)).toEqual({});
    }
  });
});

describe("relay ids", () => {
  it("round-trip the service, upstream session, protocol version, upstream id and client session key", () => {
    const session = issueSessionId({ sampling: {} });
    for (const upstreamId of [7, "req-7"]) {
      const id = relayId({
        serviceUid: "svc_1",
        upstreamSession: "up-session",
        protocolVersion: "2025-11-25",
        upstreamId,
        clientSession: session,
      });
      expect(parseRelayId(id)).toEqual({
        serviceUid: "svc_1",
        upstreamSession: "up-session",
        protocolVersion: "2025-11-25",
        upstreamId,
        clientSession: sessionKey(session),
      });
    }
  });

  it("any other id is not a relay id", () => {
    for (const id of [
      1,
      "1",
      null,
      "rayrun-relay.",
      "rayrun-relay.%%",
      `rayrun-relay.${btoa('[2,"s",null,"v",1,"c"]')}`,
    ]) {
      expect(parseRelayId(id)).toBeNull();
    }
  });
});
