// Cloudflare Access in front of the console: when ACCESS_TEAM_DOMAIN and
// ACCESS_AUD are set, the JWT Access puts in `Cf-Access-Jwt-Assertion` names
// the signed-in person by email. It is verified against the team's signing
// keys (fetched from `<team>/cdn-cgi/access/certs` and kept by jose per isolate),
// its issuer (the team domain) and its audience (the application's AUD tag).
import { createRemoteJWKSet, jwtVerify } from "jose";

export const ACCESS_HEADER = "cf-access-jwt-assertion";

export interface AccessSettings {
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySetOf(team: string) {
  let set = keySets.get(team);
  if (set === undefined) {
    set = createRemoteJWKSet(new URL(`${team}/cdn-cgi/access/certs`));
    keySets.set(team, set);
  }
  return set;
}

/** Whether both Access variables are set (empty strings leave Access off). */
export function accessConfigured(env: AccessSettings): { team: string; audience: string } | null {
  const team = env.ACCESS_TEAM_DOMAIN?.trim().replace(/\/+$/, "") ?? "";
  const audience = env.ACCESS_AUD?.trim() ?? "";
  return team !== "" && audience !== "" ? { team, audience } : null;
}

/**
 * The lower-cased email of a valid Access JWT, or null: Access not configured,
 * or the token's signature, issuer, audience, expiry or email is not good.
 */
export async function accessEmail(
  env: AccessSettings,
  assertion: string | undefined,
): Promise<string | null> {
  const access = accessConfigured(env);
  if (access === null || assertion === undefined || assertion === "") return null;
  try {
    const { payload } = await jwtVerify(assertion, keySetOf(access.team), {
      issuer: access.team,
      audience: access.audience,
      // What Access signs with; naming it refuses tokens that pick another algorithm.
      algorithms: ["RS256"],
    });
    return typeof payload.email === "string" && payload.email !== "" ? payload.email.toLowerCase() : null;
  } catch (error) {
    // The reason stays in the log; the client gets one 401 whatever failed.
    console.warn("access: JWT refused", error instanceof Error ? error.name : String(error));
    return null;
  }
}
