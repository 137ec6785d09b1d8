import { useCallback, useEffect, useState } from "preact/hooks";
import { networkProblem, ProblemError } from "../api/problem";

export interface Resource<T> {
  data: T | undefined;
  problem: ProblemError | null;
  loading: boolean;
  reload: () => Promise<void>;
}

/** Loads `load()` when `key` changes; keeps the last data while reloading so tables don't flash. */
export function useResource<T>(key: string | null, load: (signal: AbortSignal) => Promise<T>): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [loading, setLoading] = useState(key !== null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    const run = async () => {
      if (key === null) return;
      setLoading(true);
      try {
        const value = await load(abort.signal);
        if (abort.signal.aborted) return;
        setData(value);
        setProblem(null);
      } catch (error) {
        if (abort.signal.aborted) return;
        setProblem(error instanceof ProblemError ? error : networkProblem(error));
      }
      setLoading(false);
    };
    void run();
    return () => abort.abort();
    // `load` is a fresh closure each render; `key` names what it loads.
  }, [key, generation]);

  const reload = useCallback(async () => {
    setGeneration((g) => g + 1);
  }, []);
  return { data, problem, loading, reload };
}
