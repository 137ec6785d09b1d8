// HTTP client for the Rayrun API: JSON in, JSON out, problem documents become
// CliError values carrying the problem's stable `code`.
export class CliError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly body: unknown;
  constructor(message: string, code: string, status?: number, body?: unknown) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.status = status;
    this.body = body;
  }
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
