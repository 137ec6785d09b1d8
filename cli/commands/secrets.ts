// `rayrun secrets list|set|delete`: write-only workspace secrets (provider API
// keys and the like). A value is read from stdin, never from an argument, so it
// stays out of shell history and process listings; no command ever prints one.
import { CliError, jsonOf } from "../client.ts";
import { confirm } from "../confirm.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";

const secretsOf = (ctx: CommandContext) => ctx.api.v1.workspaces[":ws"].secrets;
/** `{ param: { ws, name } }`, the name URL-encoded. */
const secretParam = (ctx: CommandContext, name: string) => ({
  param: { ws: ctx.workspace(), name: encodeURIComponent(name) },
});

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** One line typed on the terminal without echo; Ctrl-C cancels. */
function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  if (typeof stdin.setRawMode !== "function") {
    throw new CliError(
      "cannot turn off echo on this terminal, so the value is not read from it; pipe it in instead: rayrun secrets set NAME < file",
      "usage",
    );
  }
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value: string[] = [];
    const end = () => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") {
          end();
          resolve(value.join(""));
          return;
        }
        if (ch === "\u0003") {
          end();
          reject(new CliError("nothing stored", "aborted"));
          return;
        }
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value.push(ch);
      }
    };
    stdin.on("data", onData);
  });
}

export const secrets = {
  async list(ctx: CommandContext) {
    const data = await jsonOf(secretsOf(ctx).$get({ param: { ws: ctx.workspace() } }));
    ctx.out.print(data, () =>
      data.items.length === 0
        ? "No secrets (rayrun secrets set <name> reads a value from stdin)"
        : table(data.items, [
            ["name", (s) => s.name],
            ["updated", (s) => s.updatedAt],
            ["by", (s) => s.updatedBy],
          ]),
    );
  },

  async set(ctx: CommandContext) {
    const name = ctx.arg(0, "name");
    if (ctx.args.length > 1) {
      throw new CliError("the value is read from stdin, never from an argument", "usage");
    }
    const raw = process.stdin.isTTY ? await promptHidden(`Value for ${name} (not shown): `) : await readAll();
    // `echo value |` and files end with a newline that is not part of the secret.
    const value = raw.replace(/\r?\n$/, "");
    if (value === "") throw new CliError("the value is empty; nothing stored", "usage");
    await secretsOf(ctx)[":name"].$put({ ...secretParam(ctx, name), json: { value } });
    ctx.out.print({ name, stored: true }, () => `Stored secret ${name}`);
  },

  async delete(ctx: CommandContext) {
    const name = ctx.arg(0, "name");
    await confirm(ctx, `delete secret ${name}`, "a provider whose apiKeySecret names it stops working");
    await secretsOf(ctx)[":name"].$delete(secretParam(ctx, name));
    ctx.out.print({ name, deleted: true }, () => `Deleted secret ${name}`);
  },
};
