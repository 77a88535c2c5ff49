import { Form, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { Link } from "./link";

/** The GET search box of an admin table; its label is also its placeholder (docs/rules.md#admin-area). */
export function AdminSearch({ label, q }: { label: string; q: string }) {
  return (
    <Form method="get" className="admin-search" role="search">
      <input type="search" name="q" defaultValue={q} placeholder={label} aria-label={label} />
      <button type="submit" className="button button--ghost">
        Search
      </button>
    </Form>
  );
}

/** Previous/next page links that keep the search. */
export function AdminPager({ base, q, page, hasMore }: { base: string; q: string; page: number; hasMore: boolean }) {
  const href = (n: number) => `${base}?${new URLSearchParams({ ...(q ? { q } : {}), page: String(n) })}`;
  return (
    <nav className="pager" aria-label="Pages">
      {page > 1 ? <Link to={href(page - 1)}>Previous page</Link> : null}
      {hasMore ? <Link to={href(page + 1)}>Next page</Link> : null}
    </nav>
  );
}

/** The 404 boundary of an admin detail panel: the message and a way back to its table. */
export function AdminDetailNotFound({ message, closeTo }: { message: string; closeTo: string }) {
  const error = useRouteError();
  if (!isRouteErrorResponse(error) || error.status !== 404) throw error;
  return (
    <aside className="admin-detail">
      <p role="alert">{message}</p>
      <Link to={closeTo}>Close</Link>
    </aside>
  );
}
