// Unsaved edits kept in localStorage per workspace and target, so a reload (or a crash) loses
// nothing; cleared once the draft is saved.

export interface Unsaved {
  source: string;
  config: string;
  /** The draft version the edits started from, to say so when they are restored. */
  baseVersion: number;
  savedAt: string;
}

export function readUnsaved(key: string): Unsaved | null {
  try {
    const raw = localStorage.getItem(key);
    if (raw === null) return null;
    const parsed = JSON.parse(raw) as Partial<Unsaved>;
    if (typeof parsed.source !== "string" || typeof parsed.config !== "string") return null;
    return {
      source: parsed.source,
      config: parsed.config,
      baseVersion: typeof parsed.baseVersion === "number" ? parsed.baseVersion : 0,
      savedAt: typeof parsed.savedAt === "string" ? parsed.savedAt : "",
    };
  } catch {
    // Storage disabled or a foreign value under our key: nothing to restore.
    return null;
  }
}

export function writeUnsaved(key: string, value: Omit<Unsaved, "savedAt">) {
  try {
    localStorage.setItem(key, JSON.stringify({ ...value, savedAt: new Date().toISOString() }));
  } catch {
    // Quota or privacy mode: the edits still live in the page.
  }
}

export function clearUnsaved(key: string) {
  try {
    localStorage.removeItem(key);
  } catch {
    // See writeUnsaved.
  }
}
