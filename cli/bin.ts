// The CLI's entry: the module scripts/build-cli.mjs bundles into cli/dist/rayrun.mjs, which the
// `rayrun` launcher (cli/rayrun.mjs) runs. `node --experimental-strip-types cli/bin.ts` runs the
// sources as they are, without a build.
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2));
