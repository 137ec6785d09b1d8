import type { Principal } from "../../shared/auth/principal";

export type ApiEnv = {
  Bindings: Env;
  Variables: { principal: Principal };
};
