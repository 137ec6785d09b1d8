// D1 tables of browser users: people invited per workspace with a role, the
// one-use sign-in links that start their sessions, and the sessions. Only
// SHA-256 hashes of link tokens and session cookies are stored. docs/storage.md.
import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaceRef } from "./columns";

export const USER_ROLES = ["viewer", "editor", "admin"] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    workspaceUid: workspaceRef(),
    /** What the user's changes are attributed to (the actor); unique in the workspace. */
    name: text("name").notNull(),
    /** Lower-cased; what a Cloudflare Access identity is matched by. Unique in the workspace when set. */
    email: text("email"),
    role: text("role", { enum: USER_ROLES }).notNull(),
    createdAt: text("created_at")
      .notNull()
      .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`),
    createdBy: text("created_by").notNull(),
    lastSignInAt: text("last_sign_in_at"),
  },
  (t) => [
    uniqueIndex("users_workspace_name").on(t.workspaceUid, t.name),
    uniqueIndex("users_workspace_email")
      .on(t.workspaceUid, t.email)
      .where(sql`email is not null`),
    index("users_email").on(t.email),
  ],
);

/** One-use sign-in links (`/sign-in#token=…`); a link is spent by setting `used_at`. */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    /** SHA-256 hex of the token; the token is shown once and never stored. */
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    workspaceUid: workspaceRef(),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [index("sign_in_links_user").on(t.userId), index("sign_in_links_expires").on(t.expiresAt)],
);

/** Browser sessions: the `rayrun_session` cookie's hash, and the CSRF token writes must echo. */
export const sessions = sqliteTable(
  "sessions",
  {
    /** SHA-256 hex of the cookie value. */
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    workspaceUid: workspaceRef(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("sessions_user").on(t.userId), index("sessions_expires").on(t.expiresAt)],
);
