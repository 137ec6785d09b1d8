// One side of the comparison: an official-SDK client (direct to the server, or
// through the gateway) and everything it observes, attributed to the operation
// that was running when it arrived.
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitResult,
  type Progress,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { elicitationAnswer } from "./answers";

/** Every client capability a server-everything tool asks for (URL elicitation included). */
const CAPABILITIES: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

export const ROOTS = [{ uri: "file:///compare-everything/root", name: "compare-everything root" }];

const SAMPLING_REPLY: CreateMessageResult = {
  model: "compare-everything-fixed",
  role: "assistant",
  content: { type: "text", text: "A fixed reply from the compare-everything client." },
  stopReason: "endTurn",
};

const CALL_TIMEOUT_MS = 60_000;
/**
 * Waited after each answer before the next operation starts: a notification
 * sent on the session's standalone stream (not the call's) can arrive just
 * after the result, and belongs to the call that caused it.
 */
const SETTLE_MS = 250;

export interface ErrorRecord {
  code: number | null;
  message: string;
  data?: unknown;
}

export interface Observed {
  logs: { level: string; logger?: string; data: unknown }[];
  /** Notifications other than log and progress ones (list changes, resource updates). */
  notifications: { method: string; params?: unknown }[];
  /** Requests the server sent this client, as received. */
  clientRequests: { method: string; params?: unknown }[];
}

export interface CallRecord extends Observed {
  /** The name called on this side. */
  name: string;
  arguments: Record<string, unknown>;
  /** The tool's entry in this side's tools/list, or null when it is not listed. */
  listing: Tool | null;
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  meta?: unknown;
  error?: ErrorRecord;
  progress: { progress: number; total?: number; message?: string }[];
  /** For task tools: the SDK's stream messages before the result. */
  taskStream?: string[];
  ms: number;
}

export interface OpRecord extends Observed {
  result?: unknown;
  error?: ErrorRecord;
  ms: number;
}

const empty = (): Observed => ({ logs: [], notifications: [], clientRequests: [] });

export function errorRecord(error: unknown): ErrorRecord {
  if (error instanceof McpError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  return { code: null, message: error instanceof Error ? error.message : String(error) };
}

export class Side {
  /** What arrived while no operation ran. */
  readonly session: Observed = empty();
  /** The SDK client's own complaints (e.g. a progress notification for an unknown token). */
  readonly clientErrors: string[] = [];
  tools: Tool[] = [];
  private window: Observed | null = null;
  private closed = false;

  private constructor(
    readonly label: string,
    readonly client: Client,
    private readonly transport: StreamableHTTPClientTransport,
  ) {}

  static async connect(label: string, url: string, headers: Record<string, string> = {}): Promise<Side> {
    const client = new Client(
      { name: "compare-everything", version: "1.0.0" },
      { capabilities: CAPABILITIES },
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
    const side = new Side(label, client, transport);
    side.install();
    await client.connect(transport);
    return side;
  }

  private get current(): Observed {
    return this.window ?? this.session;
  }

  private install(): void {
    const { client } = this;
    // Closing aborts the standalone stream, which the SDK reports as an error of its own.
    // oxlint-disable-next-line unicorn/prefer-add-event-listener -- the SDK's Protocol has no addEventListener
    client.onerror = (error) => {
      if (!this.closed) this.clientErrors.push(error.message);
    };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      this.current.logs.push({ level, ...(logger === undefined ? {} : { logger }), data });
    });
    client.fallbackNotificationHandler = async (notification) => {
      const { method, params } = notification;
      this.current.notifications.push({ method, ...(params === undefined ? {} : { params }) });
    };
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      this.current.clientRequests.push({ method: request.method, params: request.params });
      return SAMPLING_REPLY;
    });
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      this.current.clientRequests.push({ method: request.method, params: request.params });
      return elicitationAnswer(request.params);
    });
    client.setRequestHandler(ListRootsRequestSchema, (request) => {
      this.current.clientRequests.push({ method: request.method, params: request.params });
      return { roots: ROOTS };
    });
  }

  async listTools(): Promise<OpRecord> {
    const record = await this.op(() => this.client.listTools());
    const listed = record.result as { tools?: Tool[] } | undefined;
    this.tools = listed?.tools ?? [];
    return record;
  }

  /** Runs `work` as one operation: what arrives meanwhile (and just after) is its own. */
  async op(work: () => Promise<unknown>): Promise<OpRecord> {
    const window = empty();
    this.window = window;
    const started = performance.now();
    let outcome: { result: unknown } | { error: ErrorRecord };
    try {
      outcome = { result: await work() };
    } catch (error) {
      outcome = { error: errorRecord(error) };
    }
    const ms = performance.now() - started;
    await sleep(SETTLE_MS);
    this.window = null;
    return { ...outcome, ...window, ms };
  }

  /**
   * `tools/call` with a progress token (the SDK puts one in `_meta` when
   * `onprogress` is set). A tool listed with `taskSupport: "required"` goes
   * through the SDK's task stream, as its callTool insists.
   */
  async callTool(name: string, args: Record<string, unknown>): Promise<CallRecord> {
    const listing = this.tools.find((tool) => tool.name === name) ?? null;
    const progress: CallRecord["progress"] = [];
    const onprogress = ({ progress: value, total, message }: Progress) => {
      progress.push({
        progress: value,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    };
    const options = { onprogress, timeout: CALL_TIMEOUT_MS };
    const params = { name, arguments: args };
    let taskStream: string[] | undefined;
    const record = await this.op(async () => {
      if (listing?.execution?.taskSupport !== "required") {
        return this.client.callTool(params, CallToolResultSchema, options);
      }
      taskStream = [];
      let result: CallToolResult | undefined;
      for await (const message of this.client.experimental.tasks.callToolStream(
        params,
        CallToolResultSchema,
        options,
      )) {
        if (message.type === "result") result = message.result;
        else if (message.type === "error") throw message.error;
        else {
          const { status, statusMessage } = message.task;
          taskStream.push(
            `${message.type}: ${status}${statusMessage === undefined ? "" : ` (${statusMessage})`}`,
          );
        }
      }
      if (result === undefined) throw new Error("the task stream ended without a result");
      return result;
    });
    const { result, error, ms, logs, notifications, clientRequests } = record;
    const answer = (result ?? {}) as Partial<CallToolResult>;
    return {
      name,
      arguments: args,
      listing,
      ...(answer.content === undefined ? {} : { content: answer.content }),
      ...(answer.structuredContent === undefined ? {} : { structuredContent: answer.structuredContent }),
      ...(answer.isError === undefined ? {} : { isError: answer.isError }),
      ...(answer._meta === undefined ? {} : { meta: answer._meta }),
      ...(error === undefined ? {} : { error }),
      progress,
      ...(taskStream === undefined ? {} : { taskStream }),
      logs,
      notifications,
      clientRequests,
      ms,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // DELETE ends a stateful server's session (its timers with it); a stateless one answers 405, which the SDK accepts.
    await this.transport.terminateSession().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}
