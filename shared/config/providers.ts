// The workspace config's `providers`: where the LLM proxy sends each provider's
// requests and which workspace secret holds its API key. The config is
// non-secret JSON, so keys never appear here, only secret names.
import { z } from "zod";
import { LIMITS } from "../limits";
import { SECRET_NAME_PATTERN } from "../secrets/credentials";

export const PROVIDERS = ["openai", "anthropic"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Characters in a provider's `baseUrl`. */
export const PROVIDER_BASE_URL_MAX_CHARS = 2048;

const BaseUrl = z
  .url({ protocol: /^https?$/, error: "baseUrl must be an http or https URL." })
  .max(PROVIDER_BASE_URL_MAX_CHARS)
  .superRefine((value, ctx) => {
    const url = URL.parse(value);
    if (url === null) return;
    // Credentials in the URL would put a secret into the readable config.
    if (url.username !== "" || url.password !== "") {
      ctx.addIssue({
        code: "custom",
        message:
          "baseUrl must not contain credentials; store the key as a secret and name it in apiKeySecret.",
      });
    }
    // The proxy appends the provider's API path, which a query or fragment would swallow.
    if (url.search !== "" || url.hash !== "" || value.includes("?") || value.includes("#")) {
      ctx.addIssue({ code: "custom", message: "baseUrl must not have a query or fragment." });
    }
  })
  .describe("Provider API base URL (http or https), e.g. https://api.openai.com/v1");

const timeoutMs = (what: string) =>
  z
    .number()
    .int()
    .min(LIMITS.timeoutMinMs)
    .max(LIMITS.providerTimeoutMaxMs)
    .optional()
    .describe(`${what}, in ms (${LIMITS.timeoutMinMs}–${LIMITS.providerTimeoutMaxMs})`);

const TimeoutsSchema = z
  .object({
    firstByteMs: timeoutMs(
      `Longest wait for the provider's response headers; default ${LIMITS.providerFirstByteMs}`,
    ),
    idleMs: timeoutMs(`Longest gap between two parts of the response body; default ${LIMITS.providerIdleMs}`),
  })
  .strict();

const ProviderSchema = z
  .object({
    baseUrl: BaseUrl,
    apiKeySecret: z
      .string()
      .regex(SECRET_NAME_PATTERN, "apiKeySecret must be a workspace secret name.")
      .optional()
      .describe("Name of the workspace secret holding the API key (PUT …/secrets/{name})"),
    timeouts: TimeoutsSchema.optional().describe("Bounds on the provider's answer (504 provider_timeout)"),
  })
  .strict();

export type ProviderConfig = z.output<typeof ProviderSchema>;

export const ProvidersSchema = z
  .object({ openai: ProviderSchema.optional(), anthropic: ProviderSchema.optional() })
  .strict()
  .describe("LLM provider endpoints and the secrets holding their keys");

export type ProvidersConfig = z.output<typeof ProvidersSchema>;
