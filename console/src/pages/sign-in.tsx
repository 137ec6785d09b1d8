import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, jsonOf } from "../api/client";
import type { ProblemError } from "../api/problem";
import { session } from "../api/session";
import { ProblemView } from "../components/problem-view";

/**
 * Opens a sign-in link: the one-time token travels in the fragment (never sent to servers or logged
 * by proxies), and is exchanged here for the session cookie.
 */
export function SignIn() {
  const { route } = useLocation();
  const [problem, setProblem] = useState<ProblemError | null>(null);
  useEffect(() => {
    const token = new URLSearchParams(location.hash.slice(1)).get("token");
    history.replaceState(null, "", "/sign-in");
    if (!token) return;
    const exchange = async () => {
      try {
        const value = await jsonOf(api.v1.session.$post({ json: { token } }));
        session.value = value;
        route(`/w/${value.workspace}`, true);
      } catch (error) {
        setProblem(error as ProblemError);
      }
    };
    void exchange();
  }, []);
  return (
    <div class="centered-card">
      <h1>Sign in</h1>
      {problem ? (
        <>
          <ProblemView problem={problem} />
          <p>Ask a workspace admin for a new sign-in link.</p>
        </>
      ) : (
        <p>Open the sign-in link a workspace admin gave you. Each link signs in once.</p>
      )}
    </div>
  );
}

export function SignedOut() {
  return (
    <div class="centered-card">
      <h1>Signed out</h1>
      <p>To sign in again, open a new sign-in link from a workspace admin.</p>
    </div>
  );
}
