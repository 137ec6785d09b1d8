// Browser users as the users API types them (hono/client).
import type { InferResponseType } from "hono/client";
import type { api } from "../../api/client";
import type { Role } from "../../api/session";

type Invited = InferResponseType<(typeof api.v1.workspaces)[":ws"]["users"]["$post"], 201>;
export type User = Invited["user"];
export type SignIn = Invited["signIn"];

export const ROLES: { role: Role; hint: string }[] = [
  { role: "viewer", hint: "reads hooks, tools and log metadata" },
  { role: "editor", hint: "also saves, tests and deploys hooks" },
  { role: "admin", hint: "everything: keys, users, secrets, config, log details" },
];
