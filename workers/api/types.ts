import type { Principal } from "../../shared/auth/principal";
import type { Database } from "../../shared/db/client";

export type ApiEnv = {
  Bindings: Env;
  Variables: { principal: Principal; db: Database };
};
