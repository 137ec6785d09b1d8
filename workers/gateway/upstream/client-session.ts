// The MCP session ids the gateway issues on `initialize`. The gateway keeps no
// session state: the id itself carries what later requests need — a random
// part that keys the client's own upstream sessions, and the client
// capabilities (sampling, elicitation, roots) the gateway may relay requests
// for. A client can only claim capabilities for its own session, so a forged
// id harms nobody but its sender.
import { isJsonObject } from "../../../shared/json";
import { KNOBS } from "../../../shared/knobs";
import type { RelayCapabilities } from "../wire/relay";

const PREFIX = "g1.";

const RELAYED = ["sampling", "elicitation", "roots"] as const;

/** The request method each relayed capability covers. */
export const CAPABILITY_OF_METHOD: Readonly<Record<string, keyof RelayCapabilities>> = {
  "sampling/createMessage": "sampling",
  "elicitation/create": "elicitation",
  "roots/list": "roots",
};

const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

export const encodeText = (text: string): string => base64url(new TextEncoder().encode(text));

export function decodeText(text: string): string | null {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      Uint8Array.from(binary, (c) => c.charCodeAt(0)),
    );
  } catch {
    return null;
  }
}

/** The relayable part of the capabilities a client declared in `initialize`. */
export function relayCapabilities(declared: unknown): RelayCapabilities {
  const out: RelayCapabilities = {};
  if (!isJsonObject(declared)) return out;
  for (const name of RELAYED) {
    const value = declared[name];
    if (isJsonObject(value)) out[name] = value;
  }
  return out;
}

/** A new session id for a client that declared `capabilities`. */
export function issueSessionId(capabilities: RelayCapabilities): string {
  const random = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const names = Object.keys(capabilities);
  if (names.length === 0) return `${PREFIX}${random}`;
  let encoded = encodeText(JSON.stringify(capabilities));
  if (encoded.length > KNOBS.sessionCapabilitiesChars)
    encoded = encodeText(JSON.stringify(Object.fromEntries(names.map((name) => [name, {}]))));
  return `${PREFIX}${random}.${encoded}`;
}

/** What a session id the gateway issued says; a client's own id (or none) relays nothing. */
export function sessionCapabilities(sessionId: string | undefined): RelayCapabilities {
  if (sessionId === undefined || !sessionId.startsWith(PREFIX)) return {};
  const encoded = sessionId.slice(PREFIX.length).split(".")[1];
  if (encoded === undefined) return {};
  const text = decodeText(encoded);
  if (text === null) return {};
  try {
    return relayCapabilities(JSON.parse(text));
  } catch {
    return {};
  }
}

/** The part of a gateway-issued session id that identifies the session (capabilities aside). */
export const sessionKey = (sessionId: string): string => sessionId.split(".").slice(0, 2).join(".");

/** Whether the gateway issued this session id (a client's own ids carry nothing). */
export const isIssuedSession = (sessionId: string): boolean => sessionId.startsWith(PREFIX);
