// The isolate's store of revision rows and code: a view's pointed revisions
// are read together (rows in one query, code beside them when the pointer
// names its hash), reads in flight are shared, and a workspace with more
// pointed code than the warm-up allows is left to load on demand.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { codeKey, createOrReuseRevision } from "../../../shared/deploy/revisions";
import {
  clearRevisionStore,
  revisionCode,
  revisionRow,
  warmPointed,
  warmView,
} from "../../../shared/deploy/revision-store";
import { KNOBS } from "../../../shared/knobs";
import type { Pointers } from "../../../shared/lifecycle/pointers";
import { simulatedDistanceCounts, withSimulatedDistance } from "../../../shared/sim/distance";
import { createWorkspace } from "../../helpers/api";

const far = () => withSimulatedDistance({ ...env, SIM_HOME_RTT_MS: "0" });

async function deployed(ws: string, target: string, code: string, withHash = true) {
  const hash = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(code))),
  )
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
  const { revision } = await createOrReuseRevision(env, {
    workspaceUid: ws,
    target,
    generation: 0,
    version: 1,
    code,
    codeHash: hash,
    publicContract: null,
    stages: ["before"],
    exports: null,
    config: {},
    definitionHash: "",
    actor: "alice",
    keyId: "key_test",
  });
  const pointers: Pointers = {
    active: {
      revisionId: revision.id,
      bytes: revision.compiledBytes,
      setAt: revision.createdAt,
      ...(withHash ? { codeHash: hash } : {}),
    },
    shadow: null,
  };
  return { revision, pointers };
}

const sent = (before: ReturnType<typeof simulatedDistanceCounts>) => {
  const now = simulatedDistanceCounts();
  return { d1: now.d1Queries - before.d1Queries, r2: now.r2Ops - before.r2Ops };
};

afterEach(() => {
  clearRevisionStore();
});

describe("warming a view's revisions", () => {
  it("reads every pointed row in one query and every named code beside it; later reads are served from the isolate", async () => {
    const { uid } = await createWorkspace("warm");
    const a = await deployed(uid, "tool:a", "var a = 1;");
    const b = await deployed(uid, "file:plugins/b.ts", "var b = 2;");
    const c = await deployed(uid, "tool:c", "var c = 3;", false);
    const pointers = { "tool:a": a.pointers, "file:plugins/b.ts": b.pointers, "tool:c": c.pointers };
    const env2 = far();
    const before = simulatedDistanceCounts();
    await warmPointed(env2, uid, pointers);
    // One query for the three rows; a's and b's code beside it; c's (no hash on its pointer) after its row.
    expect(sent(before)).toEqual({ d1: 1, r2: 3 });

    const after = simulatedDistanceCounts();
    expect((await revisionRow(env2.DB, uid, "tool:a", a.revision.id))?.id).toBe(a.revision.id);
    expect((await revisionRow(env2.DB, uid, "tool:c", c.revision.id))?.codeKey).toBe(c.revision.codeKey);
    expect(await revisionCode(env2.CODE, codeKey(uid, "tool:a", a.revision.codeHash))).toBe("var a = 1;");
    expect(await revisionCode(env2.CODE, c.revision.codeKey)).toBe("var c = 3;");
    expect(sent(after)).toEqual({ d1: 0, r2: 0 });
  });

  it("a read asked for while the warm-up's is in flight joins it", async () => {
    const { uid } = await createWorkspace("warm-join");
    const a = await deployed(uid, "tool:a", "var a = 1;");
    const env2 = far();
    const before = simulatedDistanceCounts();
    const warming = warmPointed(env2, uid, { "tool:a": a.pointers });
    const [row, code] = await Promise.all([
      revisionRow(env2.DB, uid, "tool:a", a.revision.id),
      revisionCode(env2.CODE, a.revision.codeKey),
    ]);
    await warming;
    expect(row?.id).toBe(a.revision.id);
    expect(code).toBe("var a = 1;");
    expect(sent(before)).toEqual({ d1: 1, r2: 1 });
  });

  it("at the warm-up's byte bound it warms; one byte over, it reads nothing", async () => {
    const { uid } = await createWorkspace("warm-bound");
    const a = await deployed(uid, "tool:a", "var a = 1;");
    const sized = (bytes: number) => ({
      "tool:a": { ...a.pointers, active: { ...a.pointers.active!, bytes } },
    });
    const env2 = far();
    let before = simulatedDistanceCounts();
    await warmPointed(env2, uid, sized(KNOBS.warmCodeBytes + 1));
    expect(sent(before)).toEqual({ d1: 0, r2: 0 });
    before = simulatedDistanceCounts();
    await warmPointed(env2, uid, sized(KNOBS.warmCodeBytes));
    expect(sent(before)).toEqual({ d1: 1, r2: 1 });
  });

  it("warms a view once per epoch", async () => {
    const { uid } = await createWorkspace("warm-epoch");
    const a = await deployed(uid, "tool:a", "var a = 1;");
    const env2 = far();
    const view = { epoch: 3, pointers: { "tool:a": a.pointers } };
    await warmView(env2, uid, view);
    expect(warmView(env2, uid, view)).toBeNull();
    expect(warmView(env2, uid, { ...view, epoch: 4 })).not.toBeNull();
  });
});
