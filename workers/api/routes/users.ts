// Browser users of a workspace (admin): invite with a role, change the role,
// remove (ending their sessions), and mint one-use sign-in links. A link is
// `<origin>/sign-in#token=…`; only the token's hash is stored.
import type { Context } from "hono";
import { Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../../shared/auth/keys";
import { ROLES } from "../../../shared/auth/principal";
import { ProblemException } from "../../../shared/http/problem";
import { newId, newSecret } from "../../../shared/ids";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { SIGN_IN_LINK_TTL_MS } from "../middleware/session";
import { operation, shaped } from "../openapi/describe";
import {
  createSignInLink,
  createUser,
  deleteUser,
  findUser,
  listUsers,
  setUserRole,
  type UserRow,
} from "../stores/users";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const role = z
  .enum(ROLES)
  .describe("viewer reads; editor also saves, tests and deploys; admin does everything");

const InviteRequest = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[^\p{Cc}]+$/u, "No control characters")
      .describe("Unique in the workspace; what the user's changes are attributed to"),
    role,
    email: z
      .email()
      .max(254)
      .transform((e) => e.toLowerCase())
      .optional()
      .describe("Matched against the Cloudflare Access identity, when Access is set up"),
  })
  .strict();

const RoleRequest = z.object({ role }).strict();

const UserAnswer = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  role: z.enum(["admin", "editor", "viewer"]),
  createdAt: z.string(),
  createdBy: z.string(),
  lastSignInAt: z.string().nullable(),
});
const SignInAnswer = z.object({
  url: z.string().describe("The one-use sign-in link"),
  expiresAt: z.string(),
});
const InvitedAnswer = z.object({ user: UserAnswer, signIn: SignInAnswer });
const UsersAnswer = z.object({ users: z.array(UserAnswer) });
const NewLinkAnswer = z.object({ signIn: SignInAnswer });

const userView = (row: UserRow) =>
  shaped(UserAnswer, {
    id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    createdAt: row.createdAt,
    createdBy: row.createdBy,
    lastSignInAt: row.lastSignInAt,
  });

const noSuchUser = () =>
  new ProblemException({ code: "not_found", detail: "No such user in this workspace." });

/** A new one-use link for `user`, valid for 24 hours. */
async function signInLink(c: Context<ApiEnv>, user: UserRow) {
  const token = newSecret();
  const now = Date.now();
  const expiresAt = new Date(now + SIGN_IN_LINK_TTL_MS).toISOString();
  await createSignInLink(c.var.db, {
    tokenHash: await sha256Hex(token),
    userId: user.id,
    workspaceUid: user.workspaceUid,
    createdAt: new Date(now).toISOString(),
    createdBy: c.get("principal").actor,
    expiresAt,
  });
  return { url: `${new URL(c.req.url).origin}/sign-in#token=${token}`, expiresAt };
}

export const userRoutes = new Hono<ApiEnv>()
  .post(
    "/workspaces/:ws/users",
    operation({
      summary: "Invite a user: the user and a one-use sign-in link",
      ok: { "201": { description: "The user and a one-use sign-in link", schema: InvitedAnswer } },
      problems: [404, 409],
    }),
    requireScope("admin"),
    ...jsonBody(InviteRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      const { name, role: asRole, email } = c.req.valid("json");
      const created = await createUser(db, {
        id: newId("usr"),
        workspaceUid: ws,
        name,
        email: email ?? null,
        role: asRole,
        createdBy: c.get("principal").actor,
      });
      if (!created.ok) {
        throw new ProblemException({
          code: "conflict",
          detail: `A user with this ${created.error.taken} already exists in the workspace.`,
          extensions: { field: `/${created.error.taken}` },
        });
      }
      return c.json(
        shaped(InvitedAnswer, { user: userView(created.value), signIn: await signInLink(c, created.value) }),
        201,
      );
    },
  )
  .get(
    "/workspaces/:ws/users",
    operation({
      summary: "The workspace's users, oldest first",
      ok: { "200": { description: "`{ users }`", schema: UsersAnswer } },
      problems: [404],
    }),
    requireScope("admin"),
    async (c) => {
      const ws = c.req.param("ws");
      const db = c.var.db;
      await requireWorkspace(db, ws);
      return c.json(shaped(UsersAnswer, { users: (await listUsers(db, ws)).map(userView) }));
    },
  )
  .patch(
    "/workspaces/:ws/users/:userId",
    operation({
      summary: "Change a user's role (its sessions follow at once)",
      ok: { "200": { description: "The user", schema: UserAnswer } },
      problems: [404],
    }),
    requireScope("admin"),
    ...jsonBody(RoleRequest),
    async (c) => {
      const row = await setUserRole(
        c.var.db,
        c.req.param("ws"),
        c.req.param("userId"),
        c.req.valid("json").role,
      );
      if (row === undefined) throw noSuchUser();
      return c.json(userView(row));
    },
  )
  .delete(
    "/workspaces/:ws/users/:userId",
    operation({ summary: "Remove a user and end its sessions", ok: { "204": "Removed" }, problems: [404] }),
    requireScope("admin"),
    async (c) => {
      if (!(await deleteUser(c.var.db, c.req.param("ws"), c.req.param("userId")))) throw noSuchUser();
      return c.body(null, 204);
    },
  )
  .post(
    "/workspaces/:ws/users/:userId/sign-in-links",
    operation({
      summary: "A new one-use sign-in link for a user",
      ok: { "201": { description: "`{ signIn: { url, expiresAt } }`", schema: NewLinkAnswer } },
      problems: [404],
    }),
    requireScope("admin"),
    async (c) => {
      const user = await findUser(c.var.db, c.req.param("ws"), c.req.param("userId"));
      if (user === undefined) throw noSuchUser();
      return c.json(shaped(NewLinkAnswer, { signIn: await signInLink(c, user) }), 201);
    },
  );
