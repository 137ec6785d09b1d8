// The demo workspace `npm start` seeds, seeded by the real seedDemo against the
// shared dev server, in a state folder of its own per test file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
// @ts-expect-error -- plain ESM script without type declarations
import { seedDemo } from "../../scripts/seed-demo.mjs";

export interface SeedArgs {
  url: string;
  upstreamUrl: string;
  providerUrl: string;
  key: string;
  stateDir: string;
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the demo is seeded in beforeAll");
  return value;
}

/**
 * Registers the seeding (beforeAll) and clean-up (afterAll); read the results
 * once tests run. `demo` is what seedDemo returned (its shape is the script's).
 */
export function useSeededDemo(name: string): { demo: () => unknown; args: () => SeedArgs } {
  let demo: unknown;
  let args: SeedArgs | undefined;
  beforeAll(async () => {
    args = {
      url: inject("serverUrl"),
      upstreamUrl: inject("upstreamUrl"),
      providerUrl: inject("providerUrl"),
      key: inject("bootstrapKey"),
      stateDir: mkdtempSync(join(tmpdir(), `rayrun-${name}-`)),
    };
    demo = await seedDemo(args);
  });
  afterAll(() => {
    if (args) rmSync(args.stateDir, { recursive: true, force: true });
  });
  return { demo: () => ready(demo), args: () => ready(args) };
}
