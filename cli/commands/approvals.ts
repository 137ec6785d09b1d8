// `rayrun approvals list|approve|deny`: one-call approvals. A tool adapter that
// answers `{ action: "approval" }` holds the call; once approved, the key that
// asked may repeat that exact call once with `_meta["rayrun/approvalId"]`.
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";

type Row = Record<string, unknown>;

/** Long arguments cut to keep one approval on one line; --json has them whole. */
const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const approvalsPath = (ctx: CommandContext) => `/v1/workspaces/${ctx.workspace()}/approvals`;

async function decide(ctx: CommandContext, decision: "approve" | "deny") {
  const id = ctx.arg(0, "id");
  const { data } = await ctx.call<Row>("POST", `${approvalsPath(ctx)}/${encodeURIComponent(id)}/${decision}`);
  ctx.out.print(data, () =>
    decision === "approve"
      ? `Approved ${id} (${String(data.toolName)}): the caller may repeat that call once, until ${String(data.expiresAt)}`
      : `Denied ${id} (${String(data.toolName)})`,
  );
}

export const approvals = {
  /** Pending by default; `--status approved|denied|used|expired` for the others. */
  async list(ctx: CommandContext) {
    const params = new URLSearchParams({
      status: ctx.flag("status") ?? "pending",
      limit: ctx.flag("limit") ?? "50",
    });
    const cursor = ctx.flag("cursor");
    if (cursor !== undefined) params.set("cursor", cursor);
    const { data } = await ctx.call<{ items: Row[]; nextCursor: string | null }>(
      "GET",
      `${approvalsPath(ctx)}?${params.toString()}`,
    );
    ctx.out.print(data, () => {
      if (data.items.length === 0) return `No ${params.get("status") ?? ""} approvals`;
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
