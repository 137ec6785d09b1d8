// The console's tables: a typed list of columns (header and cell renderer) over rows, inside a
// focusable horizontal scroller so a wide table scrolls instead of widening the page. On phones each
// row becomes a card of "header: value" lines (base.css), so no column is out of sight: every cell
// carries its column's header for that, and the table its roles, which some browsers drop from a
// table that is not displayed as one.
import { type ComponentChildren, Fragment, type HTMLAttributes } from "preact";

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

export interface Column<T> {
  header: string;
  /** The header is read to screen readers only (an actions column needs a name, not a visible one). */
  hideHeader?: boolean;
  cell: (row: T) => ComponentChildren;
  /** Classes of every cell in the column (`mono`, `actions-cell`, `num`…). */
  cellClass?: string;
  /** A cell's tooltip, typically the exact value behind a shortened one (an ISO time, a full URL). */
  title?: (row: T) => string | null | undefined;
}

/** What a row carries besides its cells: classes, test and lookup hooks (`data-*`), selection. */
export type RowAttributes = HTMLAttributes<HTMLTableRowElement> & {
  [data: `data-${string}`]: string | undefined;
};

interface Props<T> {
  rows: readonly T[] | undefined;
  /** `false` entries drop a column, so role-dependent columns read inline (`writer && {…}`). */
  columns: readonly (Column<T> | false)[];
  rowKey: (row: T) => string | number;
  /** The scroller's name. */
  label: string;
  /** The table's own name: the id of a visible heading, an aria-label, or a visually hidden caption. */
  labelledBy?: string;
  ariaLabel?: string;
  caption?: string;
  class?: string;
  rowAttributes?: (row: T) => RowAttributes;
  /**
   * Opens a row from anywhere in it. Links inside the row keep their own target, and the row's first
   * link stays the way in for keyboards and screen readers (a clickable <tr> is neither).
   */
  onRowClick?: (row: T) => void;
  /** A full-width row under a row (a refresh's result, an action's problem); nothing for none. */
  expansion?: (row: T) => ComponentChildren;
  expansionClass?: string;
  /** The load is running: the scroller says so, and with no rows yet `loadingText` shows in it. */
  loading?: boolean;
  loadingText?: ComponentChildren;
  /** Shown in the scroller, under the header, once the load answered with no rows. */
  empty?: ComponentChildren;
}

const shown = (content: ComponentChildren) => content !== null && content !== undefined && content !== false;

export function DataTable<T>(props: Props<T>) {
  const columns = props.columns.filter((column): column is Column<T> => column !== false);
  const { onRowClick, expansion } = props;
  return (
    <TableWrap label={props.label} busy={props.loading}>
      <table class={props.class} role="table" aria-labelledby={props.labelledBy} aria-label={props.ariaLabel}>
        {props.caption && <caption class="sr-only">{props.caption}</caption>}
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((column) => (
              <th key={column.header} scope="col" role="columnheader">
                {column.hideHeader ? <span class="sr-only">{column.header}</span> : column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {props.rows?.map((row) => {
            const more = expansion?.(row);
            // Keyed as a whole, so a row and its expansion move together when rows are added above them.
            return (
              <Fragment key={props.rowKey(row)}>
                <tr
                  role="row"
                  {...props.rowAttributes?.(row)}
                  {...(onRowClick && {
                    "data-clickable": "",
                    onClick: (event: MouseEvent) => {
                      if (event.target instanceof Element && event.target.closest("a")) return;
                      onRowClick(row);
                    },
                  })}
                >
                  {columns.map((column) => (
                    <td
                      key={column.header}
                      role="cell"
                      class={column.cellClass}
                      title={column.title?.(row) ?? undefined}
                      data-label={column.hideHeader ? "" : column.header}
                    >
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
                {shown(more) && (
                  <tr role="row" class={props.expansionClass}>
                    <td role="cell" colSpan={columns.length} data-label="">
                      {more}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {props.rows?.length === 0 && shown(props.empty) && <div class="empty">{props.empty}</div>}
      {!props.rows && props.loading && shown(props.loadingText) && (
        <div class="empty">{props.loadingText}</div>
      )}
    </TableWrap>
  );
}
