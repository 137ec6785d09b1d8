// The bearer token a service sends its upstream: the workspace secret it
// names, opened only at the moment of an upstream request.
import { openSecret, type SealedSecret } from "../../../shared/secrets";
import type { ServiceRow } from "../../../shared/services/store";

/** The token (null when the service names no secret), or the missing secret's name. */
export async function serviceBearer(
  rootKey: string,
  workspaceUid: string,
  service: Pick<ServiceRow, "authorizationSecret">,
  sealed: SealedSecret | null,
): Promise<{ ok: true; token: string | null } | { ok: false; secret: string }> {
  const name = service.authorizationSecret;
  if (name === null) return { ok: true, token: null };
  const token = sealed ? await openSecret(rootKey, workspaceUid, name, sealed) : null;
  return token === null ? { ok: false, secret: name } : { ok: true, token };
}
