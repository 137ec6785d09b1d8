// Binary payloads shared by tools, resources and prompts. They are the smallest
// files that are still valid for their MIME type, so a client (or a gateway
// that inspects content) can decode them without special-casing the tests.

/** A 1×1 red RGB PNG. */
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** A WAV file: 8 kHz mono 8-bit PCM, eight samples of silence. */
export const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
