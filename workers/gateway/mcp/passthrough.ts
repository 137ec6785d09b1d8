// The MCP methods the gateway passes to its services as they are, beside
// tools: resources, prompts, completions and log levels. Each is registered
// only when some live service offers it, so the capabilities the gateway
// declares are the ones it can serve.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  CompleteResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  PromptSchema,
  ResourceSchema,
  ResourceTemplateSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { UpstreamCapabilities } from "../../../shared/db/schema";
import {
  complete,
  getPrompt,
  listPrompts,
  listResources,
  listResourceTemplates,
  onResource,
  setLogLevel,
  type Passed,
  type PassthroughScope,
} from "../upstream/passthrough";
import { RpcError, bareMessage } from "../wire/rpc-error";

/** The service's (or the gateway's) error, thrown for the SDK to answer. */
function throwIfError<T>(passed: Passed<T>): asserts passed is { kind: "ok"; value: T } {
  if (passed.kind === "error")
    throw new RpcError(passed.code, bareMessage(passed.code, passed.message), passed.data);
}

/** The answer as the protocol shapes it. */
function answered<S extends z.ZodType>(schema: S, passed: Passed<Record<string, unknown>>): z.infer<S> {
  throwIfError(passed);
  const parsed = schema.safeParse(passed.value);
  if (!parsed.success) throw new RpcError(-32603, "The service's answer is not a valid MCP result.");
  return parsed.data;
}

/** Listed items kept only when they have the protocol's shape, so one bad item never breaks a client. */
function valid<T>(schema: z.ZodType<T>, items: Record<string, unknown>[]): T[] {
  return items.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

export function registerPassthrough(
  server: Server,
  offered: UpstreamCapabilities,
  scope: () => PassthroughScope,
): void {
  if (offered.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: valid(ResourceSchema, await listResources(scope())),
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: valid(ResourceTemplateSchema, await listResourceTemplates(scope())),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
      answered(ReadResourceResultSchema, await onResource(scope(), "resources/read", request.params)),
    );
    if (offered.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        const passed = await onResource(scope(), "resources/subscribe", request.params);
        throwIfError(passed);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        const passed = await onResource(scope(), "resources/unsubscribe", request.params);
        throwIfError(passed);
        return {};
      });
    }
  }
  if (offered.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: valid(PromptSchema, await listPrompts(scope())),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async (request) =>
      answered(GetPromptResultSchema, await getPrompt(scope(), request.params)),
    );
  }
  if (offered.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request) =>
      answered(CompleteResultSchema, await complete(scope(), request.params)),
    );
  }
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    await setLogLevel(scope(), request.params);
    return {};
  });
}
