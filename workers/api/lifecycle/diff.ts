// Unified diffs between a version and its predecessor (jsdiff). Config is
// compared as pretty-printed JSON so a changed key shows as a changed line.
import { createTwoFilesPatch } from "diff";
import type { JsonObject } from "../../../shared/json";
import { KNOBS } from "../../../shared/knobs";

export interface DiffSide {
  version: number;
  source: string;
  config: JsonObject;
}

export interface VersionDiff {
  version: number;
  /** The predecessor's number; 0 is the empty draft. */
  against: number;
  changed: { source: boolean; config: boolean };
  /** Unified diffs; null only when the change exceeds the diff's edit budget (see `tooLarge`). */
  source: string | null;
  config: string | null;
  tooLarge: boolean;
}

const prettyConfig = (config: JsonObject) => `${JSON.stringify(config, null, 2)}\n`;

function patch(name: string, from: number, to: number, before: string, after: string): string | null {
  return (
    createTwoFilesPatch(`v${from}/${name}`, `v${to}/${name}`, before, after, undefined, undefined, {
      context: 3,
      // Bounded work: Workers freeze clocks during CPU work, so a time-based abort would not fire.
      maxEditLength: KNOBS.diffMaxEditLength,
    }) ?? null
  );
}

export function diffVersions(before: DiffSide, after: DiffSide): VersionDiff {
  const beforeConfig = prettyConfig(before.config);
  const afterConfig = prettyConfig(after.config);
  const source = patch("source.ts", before.version, after.version, before.source, after.source);
  const config = patch("config.json", before.version, after.version, beforeConfig, afterConfig);
  return {
    version: after.version,
    against: before.version,
    changed: { source: before.source !== after.source, config: beforeConfig !== afterConfig },
    source,
    config,
    tooLarge: source === null || config === null,
  };
}
