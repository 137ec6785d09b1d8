// HTTP client for the Rayrun API: JSON in, JSON out, problem documents become
// CliError values carrying the problem's stable `code` and what it names:
// the fields it refused (`errors[]`) and, for code that does not compile,
// where in the source (`diagnostics[]`).

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

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Answer text instead of parsing JSON (diffs, NDJSON). */
  text?: boolean;
}

export interface ApiResponse<T> {
  data: T;
  headers: Headers;
  status: number;
}

export async function request<T = unknown>(
  conn: Connection,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "x-rayrun-channel": "cli", ...options.headers };
  if (conn.key) headers.authorization = `Bearer ${conn.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(new URL(path, conn.url), { method, headers, body });
  } catch (error) {
    throw new CliError(`cannot reach ${conn.url}: ${(error as Error).message}`, "connection_failed");
  }
  const text = await res.text();
  if (!res.ok) {
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
  const data = (options.text ? text : text === "" ? null : JSON.parse(text)) as T;
  return { data, headers: res.headers, status: res.status };
}
