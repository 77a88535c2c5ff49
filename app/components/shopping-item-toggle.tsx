// One line of the shopping list to buy: a check mark that is a form post (several ids when it
// merges several lines); with JavaScript it answers at once.
import { useFetcher } from "@remix-run/react";
import clsx from "clsx";

import { FetcherForm, fetcherError, InlineError } from "~/components/fetcher-form";
import { InteractionFields } from "~/components/interaction-fields";
import { paths } from "~/lib/paths";

/** One line to buy: a check mark that is a form post (several ids when it merges several lines). */
export function ItemToggle({ ids, text, checked, returnTo }: { ids: string[]; text: string; checked: boolean; returnTo: string }) {
  const fetcher = useFetcher<{ ok: true } | { error: string }>();
  const pending = fetcher.formData?.get("intent");
  const shown = pending ? pending === "check" : checked;
  const error = fetcherError(fetcher);
  return (
    <li className={clsx("shopping-item", shown && "is-checked")} id={`item-${ids[0]}`}>
      <FetcherForm fetcher={fetcher} action={paths.shoppingList()} preventScrollReset>
        <InteractionFields redirectTo={returnTo} anchor={`item-${ids[0]}`} />
        {ids.map((id) => (
          <input key={id} type="hidden" name="id" value={id} />
        ))}
        <button type="submit" name="intent" value={shown ? "uncheck" : "check"} className="shopping-item__toggle" aria-pressed={shown}>
          <span className="shopping-item__box" aria-hidden="true" />
          <span className="shopping-item__text">{text}</span>
        </button>
      </FetcherForm>
      <InlineError message={error} />
    </li>
  );
}
