// Approvals on host calls: a host call the loop's policy marks does not run;
// the request fails with 422 approval_required naming the call and its
// arguments' hash; once approved, the same request repeated with
// x-rayrun-approval-id runs the approved call once. A second use, other
// arguments and a changed hook revision are refused.
import { describe, expect, it } from "vitest";
import { call, json } from "../../../helpers/api";
import { deployLib } from "../../../shared/llm/harness";
import {
  chat,
  CHAT_BODY,
  hookGateway,
  hookRecords,
  providerCalls,
  type HookGateway,
} from "../llm-hook-harness";

// The charge's amount comes from the user's message, so another message is another call.
const HOOK = `
export async function transform({ request }) {
  const receipt = await rayrun.lambda({ source: "lib/pay.ts:charge", args: { memo: request.messages[0].content } });
  return { ...request, system: "charged " + receipt.memo };
}`;
const PAY = `export function charge(args) { return { memo: args.memo }; }`;

const config = {
  pre_llm_hook: { source: "lib/request-policy.ts:transform", scope: "all" },
  code_execution: { sys_lambda: true },
  loops: { main: { lambda: { approve: ["lib/pay.ts:charge"] } } },
};

const setup = () => hookGateway({ "lib/pay.ts": PAY, "lib/request-policy.ts": HOOK }, config);

interface ApprovalAnswer {
  code: string;
  hookCode: string;
  approvalCode?: string;
  approval: { id: string; hostCall: string; target: string; argumentsHash: string };
  error: { type: string; code: string };
}

async function askApproval(g: HookGateway, body: unknown = CHAT_BODY): Promise<ApprovalAnswer> {
  const res = await chat(g, { body });
  return json<ApprovalAnswer>(res, 422);
}

const decide = async (g: HookGateway, id: string, decision: "approve" | "deny") =>
  json(await call("POST", `/v1/workspaces/${g.ws}/approvals/${id}/${decision}`, { body: {} }), 200);

const repeat = (g: HookGateway, id: string, body: unknown = CHAT_BODY) =>
  chat(g, { body, headers: { "x-rayrun-approval-id": id } });

describe("approvals on host calls", () => {
  it("a marked host call does not run: 422 approval_required names the call and its arguments' hash", async () => {
    const g = await setup();
    const res = await chat(g);
    const answer = await json<ApprovalAnswer>(res, 422);
    expect(answer).toMatchObject({
      code: "approval_required",
      hookCode: "request_hook_approval_required",
      approval: { hostCall: "rayrun.lambda", target: "lib/pay.ts:charge" },
      error: { type: "turn_error", code: "request_hook_approval_required" },
    });
    expect(answer.approval.argumentsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await providerCalls(g)).toEqual([]);
    // The approvals API lists it, pending, with the host call's arguments.
    const listed = await json<{ status: string; source: string; toolName: string; arguments: unknown }>(
      await call("GET", `/v1/workspaces/${g.ws}/approvals/${answer.approval.id}`),
      200,
    );
    expect(listed).toMatchObject({
      status: "pending",
      source: "host_call",
      toolName: "rayrun.lambda",
      callHash: answer.approval.argumentsHash,
      arguments: { source: "lib/pay.ts:charge", args: { memo: "hello there" } },
    });
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([{ outcome: "approval", code: "request_hook_approval_required" }]);
  });

  it("approved, the same request with x-rayrun-approval-id runs the call once; a second use is refused", async () => {
    const g = await setup();
    const { approval } = await askApproval(g);
    await decide(g, approval.id, "approve");
    const ran = await repeat(g, approval.id);
    expect(ran.status).toBe(200);
    const [sent] = await providerCalls(g);
    expect(JSON.stringify(sent?.body)).toContain("charged hello there");

    const again = await json<ApprovalAnswer>(await repeat(g, approval.id), 422);
    expect(again).toMatchObject({
      code: "request_hook_failed",
      hookCode: "request_hook_approval_refused",
      approvalCode: "approval_used",
      error: { type: "turn_error" },
    });
    expect(await providerCalls(g)).toHaveLength(1);
  });

  it("other arguments are refused with approval_mismatch, and nothing is sent", async () => {
    const g = await setup();
    const { approval } = await askApproval(g);
    await decide(g, approval.id, "approve");
    const other = { ...CHAT_BODY, messages: [{ role: "user", content: "charge more" }] };
    const res = await repeat(g, approval.id, other);
    expect(await json(res, 422)).toMatchObject({ approvalCode: "approval_mismatch" });
    expect(await providerCalls(g)).toEqual([]);
    const records = await hookRecords(g, res.headers.get("x-rayrun-request-id") ?? "");
    expect(records).toMatchObject([{ outcome: "refused", code: "approval_mismatch", turnError: true }]);
  });

  it("a changed hook revision is refused with revision_changed", async () => {
    const g = await setup();
    const { approval } = await askApproval(g);
    await decide(g, approval.id, "approve");
    await deployLib(g, "lib/request-policy.ts", `${HOOK}\n// revised`);
    expect(await json(await repeat(g, approval.id), 422)).toMatchObject({ approvalCode: "revision_changed" });
    expect(await providerCalls(g)).toEqual([]);
  });

  it("a denied or undecided approval is refused with its status", async () => {
    const g = await setup();
    const pending = (await askApproval(g)).approval;
    expect(await json(await repeat(g, pending.id), 422)).toMatchObject({ approvalCode: "approval_pending" });
    await decide(g, pending.id, "deny");
    expect(await json(await repeat(g, pending.id), 422)).toMatchObject({ approvalCode: "approval_denied" });
    const malformed = await chat(g, { headers: { "x-rayrun-approval-id": "not an id" } });
    expect(await json(malformed, 400)).toMatchObject({ code: "invalid_request" });
    expect(await providerCalls(g)).toEqual([]);
  });
});
