/** One entry of a problem's `errors[]`: which field, and what is wrong with it. */
export interface ProblemEntry {
  path?: string;
  pointer?: string;
  field?: string;
  detail?: string;
  message?: string;
  line?: number;
  column?: number;
  [key: string]: unknown;
}

/** An `application/problem+json` answer, kept whole so the page can show every part of it. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly errors: ProblemEntry[],
    readonly body: Record<string, unknown>,
  ) {
    super(detail || title);
    this.name = "ProblemError";
  }

  /** Builds the error from a failed response; a body that is not a problem still gets a readable title. */
  static async from(response: Response): Promise<ProblemError> {
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = await response.json();
      if (parsed !== null && typeof parsed === "object") body = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a proxy's HTML error page, say): the status line is all there is.
    }
    const text = (key: string) => {
      const value = body[key];
      return typeof value === "string" ? value : "";
    };
    const errors = Array.isArray(body.errors) ? (body.errors as ProblemEntry[]) : [];
    return new ProblemError(
      response.status,
      text("code") || `http_${response.status}`,
      text("title") || response.statusText || `HTTP ${response.status}`,
      text("detail"),
      errors,
      body,
    );
  }
}

/** A problem made on this side (the network failed), shown like a server's. */
export function networkProblem(error: unknown): ProblemError {
  const detail = error instanceof Error ? error.message : String(error);
  return new ProblemError(0, "network_error", "The server could not be reached", detail, [], {});
}
