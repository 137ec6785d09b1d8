// Browser users as the users API answers them (design contract: User, signIn).
import type { Role } from "../../api/session";

export interface User {
  id: string;
  name: string;
  email: string | null;
  role: Role;
  createdAt: string;
  createdBy: string;
  lastSignInAt: string | null;
}

export interface SignIn {
  url: string;
  expiresAt: string;
}

export const ROLES: { role: Role; hint: string }[] = [
  { role: "viewer", hint: "reads hooks, tools and log metadata" },
  { role: "editor", hint: "also saves, tests and deploys hooks" },
  { role: "admin", hint: "everything: keys, users, secrets, config, log details" },
];
