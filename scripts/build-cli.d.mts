// Types of build-cli.mjs.
/** cli/dist/rayrun.mjs, the bundle the `rayrun` launcher runs. */
export const BUNDLE: string;
export function bundleIsStale(): boolean;
export function buildCli(): Promise<{ bundle: string; bytes: number; inputs: number }>;
/** Builds the bundle unless it is up to date; answers whether it built. */
export function ensureCliBundle(): Promise<boolean>;
