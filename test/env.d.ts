import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      /** Read from migrations/ by vitest.config.ts, applied in test/setup.ts. */
      TEST_MIGRATIONS: D1Migration[];
      /** vitest.config.ts: the private JWK its fake Cloudflare Access team (https://access.test) signs with. */
      TEST_ACCESS_KEY: JsonWebKey & { kid: string; alg: string };
    }
  }
}
