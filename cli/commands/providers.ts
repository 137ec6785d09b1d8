// `rayrun providers`: the LLM providers of the workspace (the config's
// `providers` section), whether the secret holding each key is set, and the
// base URL an OpenAI or Anthropic SDK is pointed at to go through Rayrun.
import { CliError, jsonOf } from "../client.ts";
import type { CommandContext } from "../context.ts";
import { table } from "../output.ts";
import { readStoredConfig, type StoredConfig } from "./config.ts";

/** The proxy's path per provider: what the SDK appends its own paths to. */
const PROXY_PATHS = { openai: "openai/v1", anthropic: "anthropic" } as const;
type ProviderName = keyof typeof PROXY_PATHS;

/** A provider's settings in the workspace config. */
type ProviderSettings = NonNullable<StoredConfig["config"]["providers"]>[ProviderName];

/** Secret names, or null when this key may not list them (listing needs admin). */
async function secretNames(ctx: CommandContext): Promise<Set<string> | null> {
  try {
    const data = await jsonOf(ctx.api.v1.workspaces[":ws"].secrets.$get({ param: { ws: ctx.workspace() } }));
    return new Set(data.items.map((s) => s.name));
  } catch (error) {
    if (error instanceof CliError && error.status === 403) return null;
    throw error;
  }
}

function statusOf(settings: ProviderSettings | undefined, secretSet: boolean | null): string {
  if (!settings?.baseUrl) return "not configured";
  if (!settings.apiKeySecret) return "ready (sends no key)";
  if (secretSet === null) return "configured (secret not checked)";
  return secretSet ? "ready" : `secret ${settings.apiKeySecret} not set`;
}

export async function providers(ctx: CommandContext) {
  const ws = ctx.workspace();
  const [stored, names] = await Promise.all([readStoredConfig(ctx), secretNames(ctx)]);
  const section = stored.config.providers ?? {};
  const items = (Object.keys(PROXY_PATHS) as ProviderName[]).map((name) => {
    const settings = section[name];
    const secret = settings?.apiKeySecret ?? null;
    const secretSet = secret === null || names === null ? null : names.has(secret);
    return {
      name,
      configured: settings?.baseUrl !== undefined,
      baseUrl: settings?.baseUrl ?? null,
      apiKeySecret: secret,
      secretSet,
      timeouts: settings?.timeouts ?? null,
      status: statusOf(settings, secretSet),
      proxyBaseUrl: new URL(`/llm/${ws}/${PROXY_PATHS[name]}`, ctx.settings.url).toString(),
    };
  });
  ctx.out.print({ workspace: ws, items }, () =>
    [
      table(items, [
        ["provider", (p) => p.name],
        ["status", (p) => p.status],
        ["upstream", (p) => p.baseUrl],
        ["key secret", (p) => p.apiKeySecret],
        ["sdk base url", (p) => p.proxyBaseUrl],
      ]),
      "",
      "Point the OpenAI or Anthropic SDK's base URL at the SDK BASE URL, with a Rayrun key",
      "(scope tools:call) as its API key; the workspace's provider key is sent upstream instead.",
      ...(items.some((p) => !p.configured)
        ? [
            "Set a provider up with, e.g.:",
            `  rayrun config set providers.openai '{"baseUrl":"https://api.openai.com/v1","apiKeySecret":"OPENAI_API_KEY"}'`,
            "  rayrun secrets set OPENAI_API_KEY   (reads the key from stdin)",
          ]
        : []),
    ].join("\n"),
  );
}
