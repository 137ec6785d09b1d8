import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api } from "../api/client";
import { session } from "../api/session";

const NAV = [
  { label: "Services", path: "" },
  { label: "Files", path: "/files" },
  { label: "Logs", path: "/logs" },
  { label: "Approvals", path: "/approvals" },
  { label: "LLM hook & plugins", path: "/llm" },
  { label: "Keys", path: "/settings/keys", admin: true },
  { label: "Users", path: "/settings/users", admin: true },
  { label: "Secrets", path: "/settings/secrets", admin: true },
];

/**
 * The narrow layout's menu (phones): open while the button says so; Escape, a click outside and
 * following a link close it. Wider, the navigation is always shown and the button hidden (CSS).
 */
function useMenu(path: string) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => setOpen(false), [path]);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target;
      if (!(target instanceof Node)) return;
      if (panel.current?.contains(target) || button.current?.contains(target)) return;
      setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);
  return { open, setOpen, button, panel };
}

/** The frame around every signed-in page: workspace navigation, the user and sign-out. */
export function Shell({ children }: { children: ComponentChildren }) {
  const { path, route } = useLocation();
  const menu = useMenu(path);
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
    <div class="shell" data-menu-open={menu.open ? "" : undefined}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={base} aria-label="Rayrun Hooks">
          <img src="/favicon.svg" alt="" width="22" height="22" />
          <span>Rayrun Hooks</span>
        </a>
        <span class="workspace-pill" data-testid="workspace-id" title="Workspace">
          <span class="sr-only">Workspace </span>
          {current.workspace}
        </span>
        <span class="spacer" />
        <button
          ref={menu.button}
          type="button"
          class="btn menu-button"
          aria-expanded={menu.open}
          aria-controls="workspace-menu"
          onClick={() => menu.setOpen(!menu.open)}
        >
          <span class="menu-icon" aria-hidden="true" />
          Menu
        </button>
      </header>
      <div id="workspace-menu" class="menu-panel" ref={menu.panel}>
        <div class="account">
          <span class="user" data-testid="current-user">
            {current.user.name} <span class={`role role-${current.user.role}`}>{current.user.role}</span>
          </span>
          <button type="button" class="btn btn-ghost" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
        <nav
          class="sidenav"
          aria-label="Workspace"
          // A link to the page already shown changes no path, and must close the menu all the same.
          onClick={(event) => {
            if (event.target instanceof Element && event.target.closest("a")) menu.setOpen(false);
          }}
        >
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
      </div>
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
