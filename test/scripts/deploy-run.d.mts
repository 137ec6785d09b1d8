// Types of deploy-run.mjs (and of the scripts/deploy.mjs exports it passes on).
export interface DeployStep {
  label: string;
  command: string[];
  worker?: { key: string; name: string; config: string; role: string };
}
export type DeployPlan = { steps: DeployStep[]; dryRun: boolean; outdir: string | null } | { error: string };
export type SplitArgs = { rest: string[]; outdir: string | null } | { error: string };

export const WORKERS: readonly { key: string; name: string; config: string; role: string }[];
export function splitArgs(argv: readonly string[]): SplitArgs;
export function deploySteps(argv: readonly string[]): DeployPlan;

export const REPO: string;
export function runDeploy(args: readonly string[]): Promise<{ status: number | null; output: string }>;
export function tempDir(): string;
export function removeDir(dir: string): void;
export function readFile(path: string): { mtimeMs: number; text: string } | null;
