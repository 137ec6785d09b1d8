import { useEffect, useRef } from "preact/hooks";

/**
 * Calls `refresh` every `intervalMs` while the tab is visible: a hidden tab asks the server nothing, and
 * coming back into view refreshes at once, so what the page shows is never older than one interval.
 */
export function usePoll(refresh: () => void, intervalMs: number, enabled = true): void {
  // The latest closure, so the timer need not restart when the page re-renders.
  const latest = useRef(refresh);
  latest.current = refresh;
  useEffect(() => {
    const tick = () => latest.current();
    if (!enabled) return undefined;
    let timer: ReturnType<typeof setInterval> | undefined;
    const stop = () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    };
    const start = () => {
      stop();
      timer = setInterval(tick, intervalMs);
    };
    const onVisibility = () => {
      if (document.visibilityState === "hidden") {
        stop();
        return;
      }
      tick();
      start();
    };
    if (document.visibilityState !== "hidden") start();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [intervalMs, enabled]);
}
