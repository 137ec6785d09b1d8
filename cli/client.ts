// HTTP client for the Rayrun API: JSON in, JSON out, problem documents become
// CliError values carrying the problem's stable `code` and what it names:
// the fields it refused (`errors[]`) and, for code that does not compile,
// where in the source (`diagnostics[]`). Requests go through hono's client typed by the api's
// routes (ApiApp), so what a command sends and reads is checked against the API itself.
import { hc } from "hono/client";
import type { ApiApp, FileTestApp, LifecycleApp, ToolConsoleApp } from "../workers/api/app.ts";

/** One refused field of a request: a JSON-pointer path into the body or query, and why. */
export interface FieldError {
  path?: string;
  message: string;
}

/** A compile problem at a 1-based line and column of the source. */
export interface SourceDiagnostic {
  code?: string;
  message: string;
  line: number;
  column: number;
}

export class CliError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly body: unknown;
  readonly errors: readonly FieldError[];
  readonly diagnostics: readonly SourceDiagnostic[];
  constructor(message: string, code: string, status?: number, body?: unknown) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.status = status;
    this.body = body;
    this.errors = listOf(body, "errors", fieldError);
    this.diagnostics = listOf(body, "diagnostics", sourceDiagnostic);
  }
}

type Entry = Record<string, unknown>;

const isEntry = (value: unknown): value is Entry =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The well-formed entries of `body[key]`; a server sending something else is not worth a crash. */
function listOf<T>(body: unknown, key: string, read: (entry: Entry) => T | undefined): T[] {
  const list = isEntry(body) ? body[key] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry: unknown) => {
    const value = isEntry(entry) ? read(entry) : undefined;
    return value === undefined ? [] : [value];
  });
}

function fieldError(entry: Entry): FieldError | undefined {
  if (typeof entry.message !== "string") return undefined;
  return typeof entry.path === "string"
    ? { path: entry.path, message: entry.message }
    : { message: entry.message };
}

export function sourceDiagnostic(entry: Entry): SourceDiagnostic | undefined {
  const { message, line, column, code } = entry;
  if (typeof message !== "string" || typeof line !== "number" || typeof column !== "number") return undefined;
  return typeof code === "string" ? { code, message, line, column } : { message, line, column };
}

export interface Connection {
  url: string;
  key: string | undefined;
}

/**
 * `fetch` for hono's client: the CLI's headers on every request, an unreachable server as a
 * `connection_failed` CliError, and every answer that is not 2xx as a CliError from its problem
 * document; what gets through is a successful answer.
 */
function cliFetch(conn: Connection): typeof fetch {
  return async (input, init) => {
    let res: Response;
    try {
      res = await fetch(new URL(input instanceof Request ? input.url : input), init);
    } catch (error) {
      throw new CliError(`cannot reach ${conn.url}: ${(error as Error).message}`, "connection_failed");
    }
    if (!res.ok) {
      const text = await res.text();
      let problem: { code?: string; title?: string; detail?: string } = {};
      try {
        problem = JSON.parse(text) as typeof problem;
      } catch {
        // not a problem document; fall through with the raw status
      }
      throw new CliError(
        problem.detail ?? problem.title ?? `HTTP ${res.status}`,
        problem.code ?? `http_${res.status}`,
        res.status,
        problem,
      );
    }
    return res;
  };
}

/** Where paths start: the configured URL's origin (a path in it is ignored, as before). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    // Not a URL: requests fail as `connection_failed`, saying why.
    return url;
  }
}

function clientOptions(conn: Connection) {
  return {
    fetch: cliFetch(conn),
    headers: {
      "x-rayrun-channel": "cli",
      ...(conn.key ? { authorization: `Bearer ${conn.key}` } : {}),
    },
  };
}

/** hono's client typed by the api's own routes (`import type`: no server code is loaded). */
export const apiClient = (conn: Connection) => hc<ApiApp>(originOf(conn.url), clientOptions(conn));
export type Api = ReturnType<typeof apiClient>;

/** The lifecycle routes (drafts, versions, deployments, logs) under a target's base path. */
export const lifecycleClient = (conn: Connection, base: string) =>
  hc<LifecycleApp>(`${originOf(conn.url)}${base}`, clientOptions(conn));
/** A tool adapter's test console and declarations under its base path (`…/tools/{tool}/hook`). */
export const toolConsoleClient = (conn: Connection, base: string) =>
  hc<ToolConsoleApp>(`${originOf(conn.url)}${base}`, clientOptions(conn));
/** A workspace file's test console under its base path (`…/files/{path}`). */
export const fileTestClient = (conn: Connection, base: string) =>
  hc<FileTestApp>(`${originOf(conn.url)}${base}`, clientOptions(conn));

/** The JSON of a call's answer, typed by its route; failures were already thrown by the client's fetch. */
export async function jsonOf<T>(call: Promise<{ json(): Promise<T> }>): Promise<T> {
  return (await call).json();
}
