import type { ComponentChildren } from "preact";
import { useLocation } from "preact-iso";
import { api } from "../api/client";
import { session } from "../api/session";

const NAV = [
  { label: "Services", path: "" },
  { label: "Files", path: "/files" },
  { label: "Logs", path: "/logs" },
  { label: "LLM hook & plugins", path: "/llm" },
  { label: "Keys", path: "/settings/keys", admin: true },
  { label: "Users", path: "/settings/users", admin: true },
  { label: "Secrets", path: "/settings/secrets", admin: true },
];

/** The frame around every signed-in page: workspace navigation, the user and sign-out. */
export function Shell({ children }: { children: ComponentChildren }) {
  const { path, route } = useLocation();
  const current = session.value;
  if (current === null) return <>{children}</>;
  const base = `/w/${current.workspace}`;
  const isAdmin = current.user.role === "admin";
  const signOut = async () => {
    await api.v1.session.$delete().catch(() => undefined);
    session.value = null;
    route("/signed-out");
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={base} aria-label="Rayrun Hooks">
          <img src="/favicon.svg" alt="" width="22" height="22" />
          <span>Rayrun Hooks</span>
        </a>
        <span class="workspace-pill" title="Workspace">
          {current.workspace}
        </span>
        <span class="spacer" />
        <span class="user" data-testid="current-user">
          {current.user.name} <span class={`role role-${current.user.role}`}>{current.user.role}</span>
        </span>
        <button type="button" class="btn btn-ghost" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav class="sidenav" aria-label="Workspace">
        {NAV.filter((item) => !item.admin || isAdmin).map((item) => {
          const href = `${base}${item.path}`;
          const active =
            item.path === ""
              ? path === base || path.startsWith(`${base}/services`) || path.startsWith(`${base}/tools`)
              : path.startsWith(href);
          return (
            <a key={item.label} href={href} aria-current={active ? "page" : undefined}>
              {item.label}
            </a>
          );
        })}
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** A page's heading row: title, an optional trail of parents, and actions on the right. */
export function PageHeader(props: {
  title: ComponentChildren;
  trail?: { label: string; href: string }[];
  actions?: ComponentChildren;
}) {
  return (
    <div class="page-header">
      <div>
        {props.trail && props.trail.length > 0 && (
          <nav class="breadcrumbs" aria-label="Breadcrumb">
            {props.trail.map((item) => (
              <span key={item.href}>
                <a href={item.href}>{item.label}</a>
                <span aria-hidden="true"> / </span>
              </span>
            ))}
          </nav>
        )}
        <h1>{props.title}</h1>
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </div>
  );
}
