// Types of sim-run.mjs (and of the scripts/deploy.mjs exports it passes on).
export function devOnlyVars(text: string): string[];
export function simulationRefusal(read?: (path: string) => string): string | null;

export interface SimServer {
  /** The api Worker's address, where every colo is reached. */
  url: string;
  stop(): Promise<void>;
}
export function startSimServer(options: { simHomeRttMs?: number; colos?: number }): Promise<SimServer>;
