// A target's draft head: what its ETag looks like and what the empty draft
// every target starts from hashes to. The api Worker hashes drafts with the
// same function, so "identical content is a no-op" compares like with like.
import { canonicalJson, sha256Hex } from "../../shared/canonical-json";

export interface HeadRef {
  generation: number;
  version: number;
}

/** The generation grows on every reset, so an ETag taken before a reset never matches after it. */
export const draftEtag = (head: HeadRef): string => `"g${head.generation}.v${head.version}"`;

export const EMPTY_CONFIG_JSON = "{}";

/** SHA-256 over the source and the key-order-independent config (stored configs are JSON objects). */
export const contentHash = (source: string, configJson: string): Promise<string> =>
  sha256Hex(`${source}\u0000${canonicalJson(JSON.parse(configJson))}`);

/** Content hash of version 0, the empty draft every target has before its first save. */
export const emptyContentHash = (): Promise<string> => contentHash("", EMPTY_CONFIG_JSON);
