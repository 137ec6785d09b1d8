// `rayrun approvals list|approve|deny`: one-call approvals. A tool adapter that
// answers `{ action: "approval" }` holds the call; once approved, the key that
// asked may repeat that exact call once with `_meta["rayrun/approvalId"]`.
import { jsonOf } from "../client.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";

/** Long arguments cut to keep one approval on one line; --json has them whole. */
const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const approvalsOf = (ctx: CommandContext) => ctx.api.v1.workspaces[":ws"].approvals;

async function decide(ctx: CommandContext, decision: "approve" | "deny") {
  const id = ctx.arg(0, "id");
  const param = { ws: ctx.workspace(), id: encodeURIComponent(id) };
  const data = await jsonOf(approvalsOf(ctx)[":id"][decision].$post({ param }));
  ctx.out.print(data, () =>
    decision === "approve"
      ? `Approved ${id} (${data.toolName}): the caller may repeat that call once, until ${data.expiresAt}`
      : `Denied ${id} (${data.toolName})`,
  );
}

export const approvals = {
  /** Pending by default; `--status approved|denied|used|expired` for the others. */
  async list(ctx: CommandContext) {
    const status = ctx.flag("status") ?? "pending";
    const cursor = ctx.flag("cursor");
    const query = { status, limit: ctx.flag("limit") ?? "50", ...(cursor === undefined ? {} : { cursor }) };
    const data = await jsonOf(approvalsOf(ctx).$get({ param: { ws: ctx.workspace() }, query }));
    ctx.out.print(data, () => {
      if (data.items.length === 0) return `No ${status} approvals`;
      const rows = table(data.items, [
        ["id", (a) => a.id],
        ["status", (a) => a.status],
        ["tool", (a) => a.toolName],
        ["reason", (a) => a.reason],
        ["arguments", (a) => clip(JSON.stringify(a.arguments))],
        ["asked by", (a) => a.actor],
        ["created", (a) => a.createdAt],
        ["expires", (a) => a.expiresAt],
      ]);
      return data.nextCursor === null ? rows : `${rows}\nmore: --cursor ${data.nextCursor}`;
    });
  },
  approve: (ctx: CommandContext) => decide(ctx, "approve"),
  deny: (ctx: CommandContext) => decide(ctx, "deny"),
};
