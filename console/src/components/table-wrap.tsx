import type { ComponentChildren } from "preact";

/**
 * A table's horizontal scroller (phones): focusable and named, so keyboard users can scroll it and
 * screen readers announce what it holds.
 */
export function TableWrap(props: { label: string; busy?: boolean; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabIndex={0} aria-busy={props.busy}>
      {props.children}
    </div>
  );
}
