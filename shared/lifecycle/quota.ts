// Hourly quota windows and byte allowances, as the WorkspaceObject reports them.
// Windows are fixed clock hours (UTC): a window resets at the start of the next hour.
import type { Result } from "../result";

export const HOUR_MS = 3_600_000;

export interface QuotaWindow {
  /** Epoch ms of the window's start (a whole hour). */
  start: number;
  /** Epoch ms when the window resets. */
  resetAt: number;
}

export const hourWindow = (now: number): QuotaWindow => {
  const start = Math.floor(now / HOUR_MS) * HOUR_MS;
  return { start, resetAt: start + HOUR_MS };
};

/** Whole seconds until `resetAt`, at least 1 (for `Retry-After`). */
export const retryAfterSeconds = (resetAt: number, now: number): number =>
  Math.max(1, Math.ceil((resetAt - now) / 1000));

export interface QuotaRefusal {
  quota: "draftSaves" | "compilations";
  limit: number;
  used: number;
  /** ISO-8601 UTC start of the next window. */
  resetAt: string;
  retryAfterSeconds: number;
}

/** A counted use: the window's count with it. */
export interface QuotaUse {
  quota: "draftSaves" | "compilations";
  limit: number;
  used: number;
  resetAt: string;
}

export type QuotaCharge = Result<QuotaUse, QuotaRefusal>;

export interface AllowanceRefusal {
  allowance: "draftHistoryBytes" | "deployedCodeBytes";
  limit: number;
  used: number;
  requested: number;
}

export interface AllowanceUsage {
  draftHistoryBytes: { used: number; limit: number };
  deployedCodeBytes: { used: number; limit: number };
  draftSaves: { used: number; limit: number; resetAt: string };
}
