// Write-only workspace secrets: `PUT /v1/workspaces/{ws}/secrets/{name}` stores
// a value encrypted (shared/secrets), `GET …/secrets` lists names only,
// `DELETE …/secrets/{name}` removes one. No route ever returns a value.
import { Hono } from "hono";
import { z } from "zod";
import { ProblemException } from "../../../shared/http/problem";
import { utf8Bytes } from "../../../shared/json";
import { deleteSecret, listSecretNames, putSecret, SECRET_VALUE_BYTES } from "../../../shared/secrets";
import { SECRET_NAME_PATTERN } from "../../../shared/secrets/credentials";
import { requireScope } from "../middleware/auth";
import { jsonBody } from "../middleware/json-body";
import { operation, shaped } from "../openapi/describe";
import { requireWorkspace } from "../targets";
import type { ApiEnv } from "../types";

const PutSecretRequest = z
  .object({
    value: z
      .string()
      .min(1)
      .refine((v) => utf8Bytes(v) <= SECRET_VALUE_BYTES, `At most ${SECRET_VALUE_BYTES} bytes`)
      .describe("The secret; stored encrypted, never returned"),
  })
  .strict();

function secretName(name: string): string {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new ProblemException({ code: "invalid_request", detail: `${name} is not a valid secret name.` });
  }
  return name;
}

const SecretListAnswer = z.object({
  items: z.array(z.object({ name: z.string(), updatedBy: z.string(), updatedAt: z.string() })),
});

export const secretRoutes = new Hono<ApiEnv>()
  .get(
    "/workspaces/:ws/secrets",
    operation({
      summary: "Secret names (values are never returned)",
      ok: {
        "200": { description: "`{ items }`: each secret's name and last write", schema: SecretListAnswer },
      },
      problems: [404],
    }),
    requireScope("admin"),
    async (c) => {
      const ws = c.req.param("ws");
      await requireWorkspace(c.var.db, ws);
      return c.json(shaped(SecretListAnswer, { items: await listSecretNames(c.env.DB, ws) }));
    },
  )
  .put(
    "/workspaces/:ws/secrets/:name",
    operation({
      summary: "Write a secret (write-only, stored encrypted)",
      ok: { "204": "Stored" },
      problems: [404],
    }),
    requireScope("admin"),
    ...jsonBody(PutSecretRequest),
    async (c) => {
      const ws = c.req.param("ws");
      const name = secretName(c.req.param("name"));
      await requireWorkspace(c.var.db, ws);
      await putSecret(c.env, ws, name, c.req.valid("json").value, c.get("principal").actor);
      return c.body(null, 204);
    },
  )
  .delete(
    "/workspaces/:ws/secrets/:name",
    operation({ summary: "Delete a secret", ok: { "204": "Deleted" }, problems: [400, 404] }),
    requireScope("admin"),
    async (c) => {
      const ws = c.req.param("ws");
      const name = secretName(c.req.param("name"));
      await requireWorkspace(c.var.db, ws);
      if (!(await deleteSecret(c.env.DB, ws, name))) {
        throw new ProblemException({ code: "not_found", detail: `No secret ${name} in this workspace.` });
      }
      return c.body(null, 204);
    },
  );
