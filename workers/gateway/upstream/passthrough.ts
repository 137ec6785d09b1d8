// Resources, prompts, completions and log levels from the workspace's
// services, passed through as the upstreams answer them. No hook runs on
// them: hooks are for tool calls. Prompt names, resource URIs and template
// URIs are disambiguated like tool names (`{service}__{name}` only where two
// services share one), and the key's access profile filters them by those
// public names. Listings are read live and answered in one page.
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { isJsonObject } from "../../../shared/json";
import { NAME_SEPARATOR } from "../../../shared/services/names";
import type { CatalogService } from "../../../shared/services/catalog";
import {
  allowed,
  ask,
  fail,
  gatherPrompts,
  gatherTemplates,
  gatherResources,
  INVALID_PARAMS,
  offering,
  RESOURCE_NOT_FOUND,
  type Passed,
  type PassthroughScope,
} from "./passthrough-services";

export {
  endpointOf,
  listPrompts,
  listResources,
  listResourceTemplates,
  offeredCapabilities,
  type Passed,
  type PassthroughScope,
} from "./passthrough-services";

/** Where a public prompt name goes. */
async function promptTarget(
  scope: PassthroughScope,
  name: string,
): Promise<Passed<{ entry: CatalogService; upstream: string }>> {
  const services = offering(scope.catalog, "prompts");
  const only = services.length === 1 ? services[0] : undefined;
  // One service's prompts keep their names: no listing needed to route.
  if (only !== undefined) {
    return allowed(scope, `${only.service.uid}:prompts:${name}`, name)
      ? { kind: "ok", value: { entry: only, upstream: name } }
      : fail(INVALID_PARAMS, `Unknown prompt: ${name}`);
  }
  const found = (await gatherPrompts(scope)).find((p) => p.public === name);
  return found === undefined ? fail(INVALID_PARAMS, `Unknown prompt: ${name}`) : { kind: "ok", value: found };
}

export async function getPrompt(
  scope: PassthroughScope,
  params: Record<string, unknown>,
): Promise<Passed<Record<string, unknown>>> {
  const name = params.name;
  if (typeof name !== "string") return fail(INVALID_PARAMS, "prompts/get needs a name.");
  const target = await promptTarget(scope, name);
  if (target.kind !== "ok") return target;
  return ask(scope, target.value.entry, "prompts/get", { ...params, name: target.value.upstream });
}

/**
 * Where a public resource URI goes: an explicit `{service}__` prefix, the only
 * service that offers resources, or the service that lists it (as a resource
 * or by one of its templates).
 */
export async function resourceTarget(
  scope: PassthroughScope,
  uri: string,
): Promise<Passed<{ entry: CatalogService; uri: string }>> {
  const services = offering(scope.catalog, "resources");
  const at = uri.indexOf(NAME_SEPARATOR);
  if (at > 0) {
    const named = services.find((entry) => entry.service.name === uri.slice(0, at));
    if (named !== undefined) {
      const upstream = uri.slice(at + NAME_SEPARATOR.length);
      if (!allowed(scope, `${named.service.uid}:resources:${upstream}`, uri))
        return fail(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
      return { kind: "ok", value: { entry: named, uri: upstream } };
    }
  }
  const only = services.length === 1 ? services[0] : undefined;
  if (only !== undefined) {
    if (!allowed(scope, `${only.service.uid}:resources:${uri}`, uri))
      return fail(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
    return { kind: "ok", value: { entry: only, uri } };
  }
  const listed = (await gatherResources(scope)).find((r) => r.public === uri);
  if (listed !== undefined) return { kind: "ok", value: { entry: listed.entry, uri: listed.upstream } };
  const templates = await gatherTemplates(scope);
  for (const template of templates) {
    if (new UriTemplate(template.upstream).match(uri) !== null)
      return { kind: "ok", value: { entry: template.entry, uri } };
  }
  return fail(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/** `resources/read`, `resources/subscribe` and `resources/unsubscribe`: routed by URI. */
export async function onResource(
  scope: PassthroughScope,
  method: "resources/read" | "resources/subscribe" | "resources/unsubscribe",
  params: Record<string, unknown>,
): Promise<Passed<Record<string, unknown>>> {
  const uri = params.uri;
  if (typeof uri !== "string") return fail(INVALID_PARAMS, `${method} needs a uri.`);
  const target = await resourceTarget(scope, uri);
  if (target.kind !== "ok") return target;
  return ask(scope, target.value.entry, method, { ...params, uri: target.value.uri });
}

/** `completion/complete` for a prompt's or resource template's argument, at the service that owns it. */
export async function complete(
  scope: PassthroughScope,
  params: Record<string, unknown>,
): Promise<Passed<Record<string, unknown>>> {
  const ref = params.ref;
  if (!isJsonObject(ref)) return fail(INVALID_PARAMS, "completion/complete needs a ref.");
  if (ref.type === "ref/prompt" && typeof ref.name === "string") {
    const target = await promptTarget(scope, ref.name);
    if (target.kind !== "ok") return target;
    return ask(scope, target.value.entry, "completion/complete", {
      ...params,
      ref: { ...ref, name: target.value.upstream },
    });
  }
  if (ref.type === "ref/resource" && typeof ref.uri === "string") {
    const uri = ref.uri;
    const templates = await gatherTemplates(scope);
    const found = templates.find((t) => t.public === uri);
    if (found === undefined) return fail(INVALID_PARAMS, `Unknown resource template: ${uri}`);
    return ask(scope, found.entry, "completion/complete", {
      ...params,
      ref: { ...ref, uri: found.upstream },
    });
  }
  return fail(INVALID_PARAMS, "completion/complete needs a ref/prompt name or a ref/resource uri.");
}

/** `logging/setLevel`: set on every service that logs, for this client's upstream sessions. */
export async function setLogLevel(scope: PassthroughScope, params: Record<string, unknown>): Promise<void> {
  await Promise.all(
    offering(scope.catalog, "logging").map(async (entry) => {
      const answer = await ask(scope, entry, "logging/setLevel", params);
      if (answer.kind !== "ok")
        console.warn("logging/setLevel was not applied upstream", {
          service: entry.service.uid,
          error: answer.message,
        });
    }),
  );
}
