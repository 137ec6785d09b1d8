import { describe, expect, it } from "vitest";
import {
  allows,
  type Principal,
  ROLE_SCOPES,
  type Role,
  seesRunDetails,
  type Scope,
} from "../../../shared/auth/principal";

const user = (role: Role, workspaceUid = "ws_a"): Principal => ({
  kind: "user",
  actor: "u",
  keyId: "user:usr_1",
  userId: "usr_1",
  workspaceUid,
  role,
  scopes: ROLE_SCOPES[role],
  sessionId: "h",
});

const key = (scopes: Scope[]): Principal => ({
  kind: "key",
  actor: "k",
  keyId: "key_1",
  workspaceUid: "ws_a",
  scopes,
});

describe("browser users' roles", () => {
  it("map to scopes: viewer reads, editor writes hooks, admin does everything, in their workspace only", () => {
    const table: Record<Role, Record<Scope, boolean>> = {
      viewer: { "hooks:read": true, "hooks:write": false, "tools:call": false, admin: false },
      editor: { "hooks:read": true, "hooks:write": true, "tools:call": false, admin: false },
      admin: { "hooks:read": true, "hooks:write": true, "tools:call": true, admin: true },
    };
    for (const [role, scopes] of Object.entries(table) as [Role, Record<Scope, boolean>][]) {
      for (const [scope, allowed] of Object.entries(scopes) as [Scope, boolean][]) {
        expect(allows(user(role), scope, "ws_a"), `${role} ${scope}`).toBe(allowed);
        expect(allows(user(role), scope, "ws_b"), `${role} ${scope} elsewhere`).toBe(false);
      }
    }
  });

  it("captured run details: admin users only; keys that may write hooks", () => {
    expect(seesRunDetails(user("viewer"), "ws_a")).toBe(false);
    expect(seesRunDetails(user("editor"), "ws_a")).toBe(false);
    expect(seesRunDetails(user("admin"), "ws_a")).toBe(true);
    expect(seesRunDetails(user("admin", "ws_b"), "ws_a")).toBe(false);
    expect(seesRunDetails(key(["hooks:read"]), "ws_a")).toBe(false);
    expect(seesRunDetails(key(["hooks:write"]), "ws_a")).toBe(true);
    expect(seesRunDetails({ kind: "platform", actor: "bootstrap", keyId: "bootstrap" }, "ws_a")).toBe(true);
  });
});
