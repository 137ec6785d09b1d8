// `providers` validation: endpoints and secret names for the LLM proxy.
import { describe, expect, it } from "vitest";
import { PROVIDER_BASE_URL_MAX_CHARS, PROVIDERS, ProvidersSchema } from "../../../shared/config/providers";
import { WorkspaceConfigDocument } from "../../../shared/config/schema";

/** Paths (dot-joined) of the issues a providers document raises; [] when it is valid. */
function issues(providers: unknown): string[] {
  const parsed = ProvidersSchema.safeParse(providers);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join("."));
}

const baseUrl = (url: string) => issues({ openai: { baseUrl: url } });

describe("providers", () => {
  it("names openai and anthropic", () => {
    expect(PROVIDERS).toEqual(["openai", "anthropic"]);
    expect(issues({})).toEqual([]);
    expect(
      issues({
        openai: { baseUrl: "https://api.openai.com/v1", apiKeySecret: "OPENAI_KEY" },
        anthropic: { baseUrl: "https://api.anthropic.com", apiKeySecret: "anthropic.key-1" },
      }),
    ).toEqual([]);
  });

  it("is strict: unknown providers and unknown keys are refused", () => {
    expect(issues({ mistral: { baseUrl: "https://api.mistral.ai" } })).toEqual([""]);
    expect(issues({ openai: { baseUrl: "https://api.openai.com/v1", apiKey: "sk-…" } })).toEqual(["openai"]);
    expect(issues([])).toEqual([""]);
  });

  it("baseUrl is required", () => {
    expect(issues({ openai: {} })).toEqual(["openai.baseUrl"]);
    expect(issues({ anthropic: { apiKeySecret: "K" } })).toEqual(["anthropic.baseUrl"]);
  });

  it("baseUrl is an http or https URL", () => {
    expect(baseUrl("http://localhost:8788/v1")).toEqual([]);
    expect(baseUrl("https://llm.example.com/")).toEqual([]);
    for (const url of ["ftp://example.com", "file:///etc/passwd", "javascript:alert(1)", "example.com", ""]) {
      expect(baseUrl(url), url).toEqual(["openai.baseUrl"]);
    }
  });

  it("baseUrl carries no credentials (keys belong in a secret)", () => {
    expect(baseUrl("https://user:pass@api.openai.com/v1")).toEqual(["openai.baseUrl"]);
    expect(baseUrl("https://token@api.openai.com/v1")).toEqual(["openai.baseUrl"]);
  });

  it("baseUrl has no query or fragment (the proxy appends the API path)", () => {
    expect(baseUrl("https://api.openai.com/v1?key=1")).toEqual(["openai.baseUrl"]);
    expect(baseUrl("https://api.openai.com/v1#x")).toEqual(["openai.baseUrl"]);
    expect(baseUrl("https://api.openai.com/v1?")).toEqual(["openai.baseUrl"]);
  });

  it(`baseUrl is at most ${PROVIDER_BASE_URL_MAX_CHARS} characters`, () => {
    const prefix = "https://example.com/";
    const at = `${prefix}${"a".repeat(PROVIDER_BASE_URL_MAX_CHARS - prefix.length)}`;
    expect(baseUrl(at)).toEqual([]);
    expect(baseUrl(`${at}a`)).toEqual(["openai.baseUrl"]);
  });

  it("apiKeySecret is optional and a workspace secret name", () => {
    expect(issues({ openai: { baseUrl: "https://api.openai.com/v1" } })).toEqual([]);
    for (const name of ["", "-leading", "has space", "a/b", "a".repeat(65)]) {
      expect(issues({ openai: { baseUrl: "https://x.test", apiKeySecret: name } }), name).toEqual([
        "openai.apiKeySecret",
      ]);
    }
  });

  it("is stored as given, with exactly the given keys", () => {
    const providers = { anthropic: { baseUrl: "https://api.anthropic.com" } };
    expect(WorkspaceConfigDocument.parse({ providers }).providers).toStrictEqual(providers);
  });

  it("errors name the field from the document root", () => {
    const parsed = WorkspaceConfigDocument.safeParse({ providers: { openai: { baseUrl: "ftp://x" } } });
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([["providers", "openai", "baseUrl"]]);
  });
});
