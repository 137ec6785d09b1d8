import { useEffect } from "preact/hooks";

/** How often a followed log page is read again. */
export const FOLLOW_INTERVAL_MS = 4000;

/**
 * Calls `tick` every few seconds while `on`, and only while the tab is visible; stops when `on` turns
 * false or the page unmounts (leaving the page ends following).
 */
export function useFollow(on: boolean, tick: () => void): void {
  useEffect(() => {
    if (!on) return undefined;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") tick();
    }, FOLLOW_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [on]);
}
