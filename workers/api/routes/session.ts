// The browser session: `POST /v1/session` spends a sign-in link, `GET` answers
// the cookie's session (or starts one from a Cloudflare Access JWT), `DELETE`
// signs out. The cookie and CSRF rules are in middleware/session.ts.
import { type Context, Hono } from "hono";
import { z } from "zod";
import { sha256Hex } from "../../../shared/auth/keys";
import { ProblemException } from "../../../shared/http/problem";
import { ACCESS_HEADER, accessEmail } from "../middleware/access";
import { jsonBody } from "../middleware/json-body";
import {
  clearedSessionCookie,
  currentSession,
  requireCsrf,
  sessionCookieOf,
  sessionEnded,
  sessionView,
  startSession,
} from "../middleware/session";
import { validQuery } from "../middleware/validate";
import { operation, shaped } from "../openapi/describe";
import { deleteSession, spendSignInLink } from "../stores/sessions";
import { findUser, userByEmail } from "../stores/users";
import type { ApiEnv } from "../types";

const SignInRequest = z
  .object({ token: z.string().min(1).max(200).describe("The token after #token= in the sign-in link") })
  .strict();

const SessionQuery = z
  .object({
    workspace: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("With Cloudflare Access: the workspace to sign in to when the email is invited to several"),
  })
  .strict();

const SessionAnswer = z.object({
  user: z.object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    role: z.enum(["admin", "editor", "viewer"]),
  }),
  workspace: z.string(),
  csrfToken: z.string().describe("Sent as x-csrf-token on every write"),
  expiresAt: z.string(),
});
const SESSION = { description: "The session", schema: SessionAnswer };

const linkInvalid = () =>
  new ProblemException({
    code: "sign_in_link_invalid",
    detail: "The sign-in link is unknown, already used or expired; ask an admin for a new one.",
  });

/** 401: no cookie at all, or one whose session has ended (that answer also removes the cookie). */
const notSignedIn = (c: Context<ApiEnv>) =>
  sessionCookieOf(c) === undefined
    ? new ProblemException({ code: "unauthorized", detail: "Not signed in: open a sign-in link." })
    : sessionEnded(c);

export const sessionRoutes = new Hono<ApiEnv>()
  .post(
    "/session",
    operation({
      summary: "Sign in with a one-use sign-in link",
      ok: { "200": SESSION },
      public: true,
      problems: [401],
    }),
    ...jsonBody(SignInRequest),
    async (c) => {
      const db = c.var.db;
      const spent = await spendSignInLink(
        db,
        await sha256Hex(c.req.valid("json").token),
        new Date().toISOString(),
      );
      if (spent === undefined) throw linkInvalid();
      const user = await findUser(db, spent.workspaceUid, spent.userId);
      if (user === undefined) throw linkInvalid();
      return c.json(shaped(SessionAnswer, await startSession(c, user)));
    },
  )
  .get(
    "/session",
    operation({
      summary: "The signed-in session (or one started from a Cloudflare Access JWT)",
      ok: { "200": SESSION },
      session: true,
      problems: [401],
    }),
    validQuery(SessionQuery),
    async (c) => {
      const found = await currentSession(c);
      if (found !== undefined) return c.json(shaped(SessionAnswer, sessionView(found.session, found.user)));
      const email = await accessEmail(c.env, c.req.header(ACCESS_HEADER));
      if (email === null) throw notSignedIn(c);
      const user = await userByEmail(c.var.db, email, c.req.valid("query").workspace);
      if (user === undefined) {
        throw new ProblemException({
          code: "unauthorized",
          detail: "No user with this email is invited; ask an admin to invite it.",
        });
      }
      return c.json(shaped(SessionAnswer, await startSession(c, user)));
    },
  )
  .delete(
    "/session",
    operation({
      summary: "Sign out",
      ok: { "204": "Signed out; the cookie is removed" },
      session: true,
      problems: [401, 403],
    }),
    async (c) => {
      const found = await currentSession(c);
      if (found === undefined) throw notSignedIn(c);
      await requireCsrf(c, found.session);
      await deleteSession(c.var.db, found.session.idHash);
      c.header("set-cookie", clearedSessionCookie(c));
      return c.body(null, 204);
    },
  );
