/** First-page and next-page links for a cursor-paged list; the cursor lives in the URL. */
export function Pager(props: {
  cursor: string;
  next: string | null;
  href: (changes: Record<string, string | null>) => string;
  label: string;
}) {
  if (!props.cursor && !props.next) return null;
  return (
    <nav class="row pager" aria-label={props.label}>
      {props.cursor && (
        <a class="btn" href={props.href({ cursor: null })}>
          First page
        </a>
      )}
      {props.next && (
        <a class="btn" href={props.href({ cursor: props.next })}>
          Next page
        </a>
      )}
    </nav>
  );
}
