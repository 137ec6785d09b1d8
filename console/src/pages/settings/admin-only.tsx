import type { ComponentChildren } from "preact";
import { ProblemError } from "../../api/problem";
import { can } from "../../api/session";
import { ProblemView } from "../../components/problem-view";
import { PageHeader } from "../../components/shell";

/** The API refuses these pages' requests to non-admins; the page says so before asking. */
const FORBIDDEN = new ProblemError(
  403,
  "forbidden",
  "Admins only",
  "Keys, users and secrets are managed by workspace admins. Ask an admin of this workspace if you need a change here.",
  [],
  {},
);

/**
 * A settings page's frame: its header, then for admins the intro and the page, for anyone else why
 * not (without asking the API). The page is rendered only for admins, so its loads start only then.
 */
export function AdminOnly(props: { title: string; intro: ComponentChildren; children: ComponentChildren }) {
  const admin = can("admin");
  return (
    <>
      <PageHeader title={props.title} />
      {admin ? (
        <>
          <p class="muted page-intro">{props.intro}</p>
          {props.children}
        </>
      ) : (
        <ProblemView problem={FORBIDDEN} />
      )}
    </>
  );
}
