import { Form } from "@remix-run/react";
import type { ReactNode } from "react";

import { Avatar } from "~/components/avatar";
import { Link } from "~/components/link";
import { cookedPath, cookSummary, cookSummaryLabel, stars } from "~/lib/cooks";
import { paths } from "~/lib/paths";

// The recipe page's "Cooked it" section (docs/rules.md#i-made-this): how many made it and their
// average, the entries newest first, and "I made this" — a link that opens the form in place
// (a nested route, so the form's script loads only when it is opened).

export interface CookedEntry {
  cook_id: string;
  rating: number;
  note: string;
  servings: number | null;
  photo: string | null;
  created_at: string;
  person: { id: string; username: string; profile: string };
  /** Its report page, for someone else's entry (the loader makes it). */
  reportHref?: string;
}

export function CookedIt({
  recipeId,
  stats,
  entries,
  viewer,
  form,
}: {
  recipeId: string;
  stats: { count: number; average: number | null };
  entries: CookedEntry[];
  /** Signed out: null. `mayCook`: not the recipe's creator. */
  viewer: { id: string; admin: boolean; mayCook: boolean; hasEntry: boolean } | null;
  /** The entry form when it is open (the nested route's element), else null. */
  form: ReactNode;
}) {
  const formOpen = form !== null;
  const summary = cookSummary(stats);
  return (
    <section className="recipe__section cooked" id="cooked" aria-labelledby="cooked-heading">
      <h2 id="cooked-heading">Cooked it</h2>
      <p className="cooked__summary">
        {summary ? (
          <>
            <span aria-hidden="true">{summary}</span>
            <span className="visually-hidden">{cookSummaryLabel(stats)}</span>
          </>
        ) : (
          "No one has said they made this yet."
        )}
      </p>
      {!viewer ? (
        <p className="notice">
          <Link to={paths.login(`${paths.recipe(recipeId)}#cooked`)}>Log in to say you made this.</Link>
        </p>
      ) : viewer.mayCook && !formOpen ? (
        <Link to={`${cookedPath(recipeId)}#cook-form`} className="button" preventScrollReset>
          {viewer.hasEntry ? "Edit your entry" : "I made this"}
        </Link>
      ) : null}
      {form}
      {entries.length > 0 ? (
        <ol className="cooked__list">
          {entries.map((entry) => (
            <li key={entry.cook_id} className="cooked__entry" id={`cook-${entry.cook_id}`}>
              <div className="cooked__who">
                <Avatar src={entry.person.profile} size={32} />
                <Link to={paths.profile(entry.person.id)}>{entry.person.username}</Link>
                <span className="cooked__stars" role="img" aria-label={`Rated ${entry.rating} out of 5`}>
                  {stars(entry.rating)}
                </span>
              </div>
              {entry.servings ? <p className="cooked__servings">Made for {entry.servings}</p> : null}
              {entry.note ? <p className="cooked__note">{entry.note}</p> : null}
              {entry.photo ? (
                <img className="cooked__photo" src={entry.photo} alt={`${entry.person.username}'s photo of the dish`} width={320} height={240} loading="lazy" />
              ) : null}
              {entry.reportHref ? (
                <Link to={entry.reportHref} className="cooked__report" aria-label={`Report the entry by ${entry.person.username}`}>
                  Report
                </Link>
              ) : null}
              {viewer && viewer.admin && entry.person.id !== viewer.id ? (
                <Form method="post" action={cookedPath(recipeId)} encType="multipart/form-data" className="cooked__remove">
                  <input type="hidden" name="userId" value={entry.person.id} />
                  <button type="submit" name="intent" value="remove-cook" className="button button--ghost button--small">
                    Remove entry
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {stats.count > entries.length ? (
        <p>
          <Link to={`${paths.recipe(recipeId)}?cooked=all#cooked`} preventScrollReset>
            All {stats.count} entries
          </Link>
        </p>
      ) : null}
    </section>
  );
}
