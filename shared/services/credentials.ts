// The bearer token a service sends to its upstream, read from a workspace secret.

/**
 * Value of workspace secret `name`, or null when it is not set. Workspace
 * secrets (`PUT /v1/workspaces/{ws}/secrets/{name}`) are not stored yet, so no
 * secret is ever set: a service that names one cannot reach its upstream until
 * the secrets feature answers here.
 */
export function workspaceSecret(
  _db: D1Database,
  _workspaceUid: string,
  _name: string,
): Promise<string | null> {
  return Promise.resolve(null);
}

/** Workspace secret names: what a service's `authorizationSecret` may hold. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
