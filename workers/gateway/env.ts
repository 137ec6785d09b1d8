// What every part of the gateway is handed: the bindings a request may reach
// and the caller it was admitted as. Kept at the gateway's top, below every
// layer, so no part imports the tool-call path just to name its environment.
import type { WorkspaceBinding } from "../../durable-objects/workspace/rpc";

export type GatewayEnv = Pick<Env, "DB" | "CODE" | "RAYRUN_BOOTSTRAP_KEY"> & WorkspaceBinding;

export interface Caller {
  keyId: string;
  actor: string;
  /** The access profile the key names ("default" when none). */
  profile: string;
}
