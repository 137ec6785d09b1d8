// How the console prints times, durations, sizes and ids: one style on every page.

const PARTS = {
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
} as const;
const THIS_YEAR = new Intl.DateTimeFormat(undefined, PARTS);
const OTHER_YEAR = new Intl.DateTimeFormat(undefined, { ...PARTS, year: "numeric" });

/** A compact local date and time for a table cell (the ISO value goes in the title); the year only when not this one. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const sameYear = new Date(ms).getFullYear() === new Date().getFullYear();
  return (sameYear ? THIS_YEAR : OTHER_YEAR).format(ms);
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** "3 minutes ago", for when something last happened. */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "never";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  let value = (ms - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return RELATIVE.format(Math.round(value), unit);
    value /= size;
  }
  return iso;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return "<1 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// The API counts fuel with a fraction, which printed as "411.961" read like four hundred thousand. A
// person reads whole units, grouped the English way like the rest of the page's text (in the reader's
// locale, German grouping would bring the same confusion back: "411.961" for 411961).
const FUEL = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** "411,961 fuel": the fuel a run used. */
export const formatFuel = (fuel: number): string => `${FUEL.format(Math.round(fuel))} fuel`;

/**
 * Ids are long. Ours lead with their creation time (shared/ids.ts), so ids made in the same few minutes
 * share their first characters: the kind and the random end tell them apart (`rev_…k8z3qa`).
 */
export function shortId(id: string): string {
  const ours = /^([a-z]+)_[0-9a-z]{22}$/.exec(id);
  if (ours) return `${ours[1]}_…${id.slice(-6)}`;
  return id.length > 12 ? id.slice(0, 12) : id;
}
