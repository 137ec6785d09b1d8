// `…/versions/{n}/test-status`: whether a version may be deployed, as the
// deploy route decides it (a passing test run of that version, this generation).
import { describe, expect, it } from "vitest";
import { expectProblem, json } from "../../../helpers/api";
import { call, fileFixture, fileUrl, LIB_SOURCE, post, saveFile, testFile } from "./files-harness";

interface TestStatus {
  version: number;
  tested: boolean;
  lastPassingRun: { id: string; at: string; stage: string; actor: string } | null;
}

describe("version test status", () => {
  it("is false until a run of that version passes; a failing run or another version's run does not count", async () => {
    const f = await fileFixture();
    const path = "lib/status.ts";
    const status = async (n: number) =>
      json<TestStatus>(
        await call("GET", fileUrl(f, path, `/versions/${n}/test-status`), { key: f.readKey }),
        200,
      );
    await saveFile(f, path, LIB_SOURCE("1"));
    await saveFile(f, path, LIB_SOURCE("2"));
    expect(await status(1)).toEqual({ version: 1, tested: false, lastPassingRun: null });

    const failed = await testFile(f, path, { export: "nope", input: {}, version: 1 }).catch(() => null);
    expect(failed).toBeNull();
    const threw = await testFile(f, path, { export: "enrich", input: {}, version: 1 });
    expect(threw.ok).toBe(false);
    expect((await status(1)).tested).toBe(false);

    const passed = await testFile(f, path, { input: {}, version: 2 });
    expect(passed.ok).toBe(true);
    expect((await status(1)).tested).toBe(false);
    expect(await status(2)).toEqual({
      version: 2,
      tested: true,
      lastPassingRun: { id: passed.id, at: expect.any(String), stage: "main", actor: "alice" },
    });
    // It answers what the deploy route decides.
    const deployed = await post(f, path, "/deployments", { version: 2, channel: "active" });
    expect(deployed.status).toBe(201);
    await expectProblem(
      await post(f, path, "/deployments", { version: 1, channel: "active" }),
      409,
      "not_tested",
    );
  });

  it("a version that does not exist is 404; a path segment that is no version number is 400", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/status.ts", LIB_SOURCE("1"));
    const url = (n: string) => fileUrl(f, "lib/status.ts", `/versions/${n}/test-status`);
    await expectProblem(await call("GET", url("7"), { key: f.readKey }), 404, "not_found");
    await expectProblem(await call("GET", url("x"), { key: f.readKey }), 400, "invalid_request");
  });
});
