// The services a pass-through request can go to (passthrough.ts): which
// offer a feature, the endpoint of each for the client, one request to one,
// and their listings under the public names clients see, filtered by the
// key's access profile.
import { decideAccess } from "../../../shared/access";
import type { UpstreamCapabilities } from "../../../shared/db/schema";
import { isJsonObject } from "../../../shared/json";
import type { RelayCapabilities } from "../wire/relay";
import { publicToolNames } from "../../../shared/services/names";
import { UPSTREAM_LIMITS } from "../../../shared/services/upstream";
import type { Caller } from "../env";
import type { CatalogService } from "../../../shared/services/catalog";
import type { WorkspaceCatalog } from "../caches/catalog-cache";
import { serviceBearer } from "./service-bearer";
import { requestUpstream, serviceEndpoint, summary, type UpstreamEndpoint } from "./upstream-session";

export type Feature = keyof UpstreamCapabilities;

export interface PassthroughScope {
  rootKey: string;
  workspaceUid: string;
  caller: Caller;
  catalog: WorkspaceCatalog;
  clientSession?: string;
  clientCapabilities?: RelayCapabilities;
}

/** A failure with the JSON-RPC error the client gets. */
export type PassthroughError = { kind: "error"; code: number; message: string; data?: unknown };
export type Passed<T> = { kind: "ok"; value: T } | PassthroughError;

/** JSON-RPC code MCP gives an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002;
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

export const fail = (code: number, message: string, data?: unknown): PassthroughError => ({
  kind: "error",
  code,
  message,
  ...(data === undefined ? {} : { data }),
});

/** Live services whose upstream offers `feature`, by name. */
export const offering = (catalog: WorkspaceCatalog, feature: Feature): CatalogService[] =>
  catalog.services.filter((entry) => entry.service.capabilities?.[feature] !== undefined);

/** What the gateway declares beside tools: what at least one live service offers. */
export function offeredCapabilities(catalog: WorkspaceCatalog): UpstreamCapabilities {
  const some = (feature: Feature, flag?: string): boolean =>
    offering(catalog, feature).some((entry) => {
      const offered: unknown = entry.service.capabilities?.[feature];
      return flag === undefined || (isJsonObject(offered) && offered[flag] === true);
    });
  return {
    ...(some("resources")
      ? {
          resources: {
            ...(some("resources", "subscribe") ? { subscribe: true } : {}),
            ...(some("resources", "listChanged") ? { listChanged: true } : {}),
          },
        }
      : {}),
    ...(some("prompts") ? { prompts: some("prompts", "listChanged") ? { listChanged: true } : {} } : {}),
    ...(some("completions") ? { completions: {} } : {}),
  };
}

export async function endpointOf(
  scope: PassthroughScope,
  entry: CatalogService,
): Promise<Passed<UpstreamEndpoint>> {
  const { service } = entry;
  const bearer = await serviceBearer(scope.rootKey, scope.workspaceUid, service, entry.secret);
  if (!bearer.ok) {
    return fail(
      INTERNAL_ERROR,
      `The service ${service.name} needs the workspace secret ${bearer.error.secret}, which is not set.`,
    );
  }
  return {
    kind: "ok",
    value: serviceEndpoint(service, bearer.value, {
      workspaceUid: scope.workspaceUid,
      ...(scope.clientSession === undefined ? {} : { sessionId: scope.clientSession }),
      ...(scope.clientCapabilities === undefined ? {} : { capabilities: scope.clientCapabilities }),
    }),
  };
}

/** One request to a service; its JSON-RPC errors come back as its own, with a bare message. */
export async function ask(
  scope: PassthroughScope,
  entry: CatalogService,
  method: string,
  params: Record<string, unknown>,
): Promise<Passed<Record<string, unknown>>> {
  const endpoint = await endpointOf(scope, entry);
  if (endpoint.kind !== "ok") return endpoint;
  const answer = await requestUpstream(endpoint.value, { method, params });
  if (answer.kind === "result") return { kind: "ok", value: answer.result };
  if (answer.kind === "rpc_error") return fail(answer.code, answer.message, answer.data);
  return fail(
    INTERNAL_ERROR,
    `The service ${entry.service.name} did not answer ${method}: ${summary(answer)}`,
  );
}

/** Every item of a paginated list method of one service (bounded like tools/list). */
async function listAll(
  scope: PassthroughScope,
  entry: CatalogService,
  method: string,
  key: string,
): Promise<Passed<Record<string, unknown>[]>> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 1; page <= UPSTREAM_LIMITS.toolListPages; page++) {
    const answer = await ask(scope, entry, method, cursor === undefined ? {} : { cursor });
    if (answer.kind !== "ok") return answer;
    const listed = answer.value[key];
    if (Array.isArray(listed)) items.push(...listed.filter(isJsonObject));
    if (items.length > UPSTREAM_LIMITS.toolsPerService) break;
    const next = answer.value.nextCursor;
    if (typeof next !== "string" || next === "") break;
    cursor = next;
  }
  return { kind: "ok", value: items.slice(0, UPSTREAM_LIMITS.toolsPerService) };
}

/** One listed item with the service it came from and the name clients see. */
export interface PublicItem {
  entry: CatalogService;
  /** The upstream's own name, URI or URI template. */
  upstream: string;
  /** What clients see and send. */
  public: string;
  item: Record<string, unknown>;
}

/** Items of every offering service, with public names; a service that fails is left out and logged. */
async function gather(
  scope: PassthroughScope,
  feature: Feature,
  method: string,
  key: string,
  field: string,
): Promise<PublicItem[]> {
  const listed = await Promise.all(
    offering(scope.catalog, feature).map(async (entry) => ({
      entry,
      answer: await listAll(scope, entry, method, key),
    })),
  );
  const named: { entry: CatalogService; upstream: string; item: Record<string, unknown> }[] = [];
  for (const { entry, answer } of listed) {
    if (answer.kind !== "ok") {
      console.warn(`${method} left a service out`, { service: entry.service.uid, error: answer.message });
      continue;
    }
    for (const item of answer.value) {
      const value = item[field];
      if (typeof value === "string") named.push({ entry, upstream: value, item });
    }
  }
  const uid = (n: (typeof named)[number]) => `${n.entry.service.uid}\n${n.upstream}`;
  const names = publicToolNames(
    named.map((n) => ({ uid: uid(n), serviceName: n.entry.service.name, upstreamName: n.upstream })),
  );
  return named
    .map((n) => ({ ...n, public: names.get(uid(n)) ?? n.upstream }))
    .filter((n) => allowed(scope, `${n.entry.service.uid}:${feature}:${n.upstream}`, n.public));
}

export const gatherPrompts = (scope: PassthroughScope) =>
  gather(scope, "prompts", "prompts/list", "prompts", "name");
export const gatherResources = (scope: PassthroughScope) =>
  gather(scope, "resources", "resources/list", "resources", "uri");
export const gatherTemplates = (scope: PassthroughScope) =>
  gather(scope, "resources", "resources/templates/list", "resourceTemplates", "uriTemplate");

/** The key's access profile applied to a prompt name or resource URI, as to a tool name. */
export function allowed(scope: PassthroughScope, uid: string, publicName: string): boolean {
  const { catalog, caller } = scope;
  return decideAccess({ uid, publicName, risk: "low" }, catalog.workspace, catalog.key, caller.profile).ok;
}

const withName = (items: PublicItem[], field: string) =>
  items.map(({ item, public: name }) => ({ ...item, [field]: name }));

export async function listPrompts(scope: PassthroughScope): Promise<Record<string, unknown>[]> {
  return withName(await gatherPrompts(scope), "name");
}

export async function listResources(scope: PassthroughScope): Promise<Record<string, unknown>[]> {
  return withName(await gatherResources(scope), "uri");
}

export async function listResourceTemplates(scope: PassthroughScope): Promise<Record<string, unknown>[]> {
  return withName(await gatherTemplates(scope), "uriTemplate");
}
