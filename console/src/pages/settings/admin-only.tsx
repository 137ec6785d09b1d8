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

export function AdminOnly(props: { title: string; children: ComponentChildren }) {
  if (can("admin")) return <>{props.children}</>;
  return (
    <>
      <PageHeader title={props.title} />
      <ProblemView problem={FORBIDDEN} />
    </>
  );
}
