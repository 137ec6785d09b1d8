// A draft as it is stored: formatted source, config JSON text, byte size and a
// content hash that decides whether a save changes anything.
import { contentHash } from "../../../durable-objects/workspace/head";
import type { PreparedDraft } from "../../../durable-objects/workspace/rpc";
import { isJsonObject, type JsonObject, utf8Bytes } from "../../../shared/json";
import { formatSource } from "./format";

/** A stored config's JSON text as the object it is (stored configs are always objects). */
export function parseConfig(configJson: string): JsonObject {
  const value: unknown = JSON.parse(configJson);
  if (!isJsonObject(value)) throw new Error("stored config is not a JSON object");
  return value;
}

export const draftBytes = (source: string, configJson: string): number =>
  utf8Bytes(source) + utf8Bytes(configJson);

/**
 * Formats a new draft's source and measures it. When formatting would push the
 * source over `maxSourceBytes`, the source is kept as sent.
 */
export async function prepareDraft(
  input: { source: string; config: JsonObject },
  maxSourceBytes: number = Number.POSITIVE_INFINITY,
): Promise<PreparedDraft> {
  const result = await formatSource(input.source);
  const { source, formatted } =
    result.formatted && utf8Bytes(result.source) > maxSourceBytes
      ? { source: input.source, formatted: false }
      : result;
  return storedDraft({ source, configJson: JSON.stringify(input.config), formatted });
}

/** A draft whose stored form is already final (restoring a version copies it verbatim). */
export async function storedDraft(input: {
  source: string;
  configJson: string;
  formatted: boolean;
}): Promise<PreparedDraft> {
  return {
    source: input.source,
    configJson: input.configJson,
    formatted: input.formatted,
    bytes: draftBytes(input.source, input.configJson),
    contentHash: await contentHash(input.source, input.configJson),
  };
}
