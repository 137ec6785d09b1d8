// Deploying an untested version: the refusal says how to test it from each
// place a person works, the CLI and the console, not only the route.
import { describe, expect, it } from "vitest";
import { expectProblem } from "../../../helpers/api";
import { SEED_ADAPTER } from "../compiler/fixtures";
import { call, fixture, getHook, saveOk } from "../lifecycle/harness";
import { fileFixture, fileUrl, LIB_SOURCE, PLUGIN_SOURCE, saveFile } from "./files-harness";

const deploy = (url: string, key: string, version: number) =>
  call("POST", `${url}/deployments`, { key, body: { version, channel: "active" } });

describe("not_tested", () => {
  it("a tool's hook: names `rayrun hooks test` for the tool and version, and the console's Test tab", async () => {
    const f = await fixture();
    await saveOk(f, (await getHook(f)).etag ?? "", { source: SEED_ADAPTER });
    const refused = await expectProblem(await deploy(f.hook, f.key, 1), 409, "not_tested");
    expect(refused.detail).toContain(`rayrun hooks test --tool ${f.toolUid} --stage before --version 1`);
    expect(refused.detail).toContain("Test tab");
    expect(refused.detail).toContain("Run test");
    expect(refused).toMatchObject({ version: 1 });
  });

  it("a lib file and a plugin: name `rayrun files test` with the path, the version and what to run", async () => {
    const f = await fileFixture();
    await saveFile(f, "lib/policy.ts", LIB_SOURCE("1"));
    const lib = await expectProblem(await deploy(fileUrl(f, "lib/policy.ts"), f.key, 1), 409, "not_tested");
    expect(lib.detail).toContain("rayrun files test lib/policy.ts --export NAME --version 1");
    expect(lib.detail).toContain("Test tab");

    await saveFile(f, "plugins/temp.ts", PLUGIN_SOURCE(0.1));
    const plugin = await expectProblem(
      await deploy(fileUrl(f, "plugins/temp.ts"), f.key, 1),
      409,
      "not_tested",
    );
    expect(plugin.detail).toContain("rayrun files test plugins/temp.ts --hook NAME --version 1");
  });
});
