// The bearer token a service sends its upstream: the workspace secret it
// names, opened only at the moment of an upstream request.
import { err, ok, type Result } from "../../../shared/result";
import { openSecret, type SealedSecret } from "../../../shared/secrets";
import type { ServiceRow } from "../../../shared/services/store";

/** The token (null when the service names no secret), or the name of the secret that is not set. */
export async function serviceBearer(
  rootKey: string,
  workspaceUid: string,
  service: Pick<ServiceRow, "authorizationSecret">,
  sealed: SealedSecret | null,
): Promise<Result<string | null, { secret: string }>> {
  const name = service.authorizationSecret;
  if (name === null) return ok(null);
  const token = sealed ? await openSecret(rootKey, workspaceUid, name, sealed) : null;
  return token === null ? err({ secret: name }) : ok(token);
}
