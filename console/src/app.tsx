import type { ComponentChildren, ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, Route, Router, useLocation, useRoute } from "preact-iso";
import { api, jsonOf } from "./api/client";
import type { ProblemError } from "./api/problem";
import { missingWorkspace, session } from "./api/session";
import { ProblemView } from "./components/problem-view";
import { Shell } from "./components/shell";
import { ApprovalsPage } from "./pages/approvals/approvals-page";
import { FilePage } from "./pages/files/file-page";
import { FilesPage } from "./pages/files/files-page";
import { ToolHookPage } from "./pages/hooks/tool-hook-page";
import { LlmPage } from "./pages/llm/llm-page";
import { LogsPage } from "./pages/logs/logs-page";
import { NotFound, WorkspaceNotFound } from "./pages/not-found";
import { ServiceToolsPage } from "./pages/services/service-tools-page";
import { ServicesPage } from "./pages/services/services-page";
import { KeysPage } from "./pages/settings/keys-page";
import { SecretsPage } from "./pages/settings/secrets-page";
import { UsersPage } from "./pages/settings/users-page";
import { SignedOut, SignIn } from "./pages/sign-in";

/** Every signed-in page: the session is read once, then the page renders inside the shell. */
function SignedIn({ children }: { children: ComponentChildren }) {
  const { route, path } = useLocation();
  const ws = useRoute().params.ws;
  const [problem, setProblem] = useState<ProblemError | null>(null);
  const [checked, setChecked] = useState(session.value !== null);
  useEffect(() => {
    if (session.value !== null) return;
    const load = async () => {
      try {
        session.value = await jsonOf(api.v1.session.$get({ query: {} }));
      } catch (error) {
        setProblem(error as ProblemError);
      }
      setChecked(true);
    };
    void load();
  }, []);
  const current = session.value;
  useEffect(() => {
    if (current !== null && path === "/") route(`/w/${current.workspace}`, true);
  }, [current, path]);
  if (!checked)
    return (
      <div class="centered-card" aria-busy="true">
        Loading…
      </div>
    );
  if (current === null) {
    return (
      <div class="centered-card">
        <h1>Sign in to Rayrun Hooks</h1>
        {problem && problem.status !== 401 && <ProblemView problem={problem} />}
        <p>Open the sign-in link a workspace admin gave you. Each link signs in once.</p>
      </div>
    );
  }
  // A session belongs to one workspace: any other in the address is not one this user can open.
  if (ws !== undefined && (ws !== current.workspace || missingWorkspace.value === ws)) {
    return <WorkspaceNotFound ws={ws} home={current.workspace} />;
  }
  return <Shell>{children}</Shell>;
}

/** Wraps a page so its route needs a session; route params reach the page unchanged. */
function guarded<P extends object>(Page: ComponentType<P>): ComponentType<P> {
  return (props: P) => (
    <SignedIn>
      <Page {...props} />
    </SignedIn>
  );
}

const PAGES = {
  home: guarded(() => null),
  services: guarded(ServicesPage),
  serviceTools: guarded(ServiceToolsPage),
  toolHook: guarded(ToolHookPage),
  files: guarded(FilesPage),
  file: guarded(FilePage),
  logs: guarded(LogsPage),
  approvals: guarded(ApprovalsPage),
  llm: guarded(LlmPage),
  keys: guarded(KeysPage),
  users: guarded(UsersPage),
  secrets: guarded(SecretsPage),
};

export function App() {
  return (
    <LocationProvider>
      <ErrorBoundary>
        <Router>
          <Route path="/sign-in" component={SignIn} />
          <Route path="/signed-out" component={SignedOut} />
          <Route path="/" component={PAGES.home} />
          <Route path="/w/:ws" component={PAGES.services} />
          <Route path="/w/:ws/services/:service" component={PAGES.serviceTools} />
          <Route path="/w/:ws/tools/:tool" component={PAGES.toolHook} />
          <Route path="/w/:ws/files" component={PAGES.files} />
          <Route path="/w/:ws/files/:path+" component={PAGES.file} />
          <Route path="/w/:ws/logs" component={PAGES.logs} />
          <Route path="/w/:ws/approvals" component={PAGES.approvals} />
          <Route path="/w/:ws/llm" component={PAGES.llm} />
          <Route path="/w/:ws/settings/keys" component={PAGES.keys} />
          <Route path="/w/:ws/settings/users" component={PAGES.users} />
          <Route path="/w/:ws/settings/secrets" component={PAGES.secrets} />
          <Route default component={NotFound} />
        </Router>
      </ErrorBoundary>
    </LocationProvider>
  );
}
