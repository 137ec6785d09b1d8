// The bearer token a service sends to its upstream, read from a workspace secret.
import { env } from "cloudflare:workers";
import { readSecret } from "./";

/**
 * Value of workspace secret `name`, or null when it is not set. Secrets are
 * stored encrypted (shared/secrets); the root key is the Worker's
 * `RAYRUN_BOOTSTRAP_KEY` unless the caller passes it. Only code that talks to
 * upstreams calls this: never the API's responses, never hooks.
 */
export function workspaceSecret(
  db: D1Database,
  workspaceUid: string,
  name: string,
  rootKey: string = env.RAYRUN_BOOTSTRAP_KEY,
): Promise<string | null> {
  return readSecret({ DB: db, RAYRUN_BOOTSTRAP_KEY: rootKey }, workspaceUid, name);
}

/** Workspace secret names: what a service's `authorizationSecret` may hold. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
