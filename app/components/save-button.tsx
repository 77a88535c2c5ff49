import { useFetcher } from "@remix-run/react";
import clsx from "clsx";

import { paths } from "~/lib/paths";

import { InteractionFields } from "./interaction-fields";
import { Icon } from "./icons";
import { FetcherForm, fetcherError, InlineError } from "./fetcher-form";

type SaveResult = { saved: boolean } | { error: string };

/**
 * The bookmark toggle. Optimistic with JavaScript; further clicks wait while a request is
 * pending (docs/rules.md#likes-saves-comments), and the server is idempotent anyway.
 */
export function SaveButton({
  recipeId,
  saved,
  returnTo,
  look = "icon",
}: {
  recipeId: string;
  saved: boolean;
  returnTo: string;
  /**
   * "button": an outlined button beside the page's other buttons; "icon": a borderless toggle with
   * its words; "card": the bookmark alone (its words for screen readers, its state in aria-pressed).
   */
  look?: "icon" | "button" | "card";
}) {
  const fetcher = useFetcher<SaveResult>();
  let shown = saved;
  if (fetcher.formData) shown = fetcher.formData.get("intent") === "save";
  else if (fetcher.data && "saved" in fetcher.data) shown = fetcher.data.saved;
  const error = fetcherError(fetcher);
  return (
    <FetcherForm fetcher={fetcher} action={paths.saveRecipe(recipeId)} preventScrollReset className="save-form" id={`save-${recipeId}`}>
      <InteractionFields redirectTo={returnTo} anchor={`save-${recipeId}`} />
      <input type="hidden" name="recipeId" value={recipeId} />
      <button
        type="submit"
        name="intent"
        value={shown ? "unsave" : "save"}
        className={clsx(look === "button" ? "button button--ghost" : "icon-button", look === "card" && "icon-button--only", shown && "is-on")}
        disabled={fetcher.state !== "idle"}
        aria-pressed={look === "card" ? shown : undefined}
        title={look === "card" ? (shown ? "Saved" : "Save recipe") : undefined}
      >
        <Icon name="bookmark" filled={shown} />
        {look === "card" ? <span className="visually-hidden">Save recipe</span> : <span>{shown ? "Unsave recipe" : "Save recipe"}</span>}
      </button>
      <InlineError message={error} />
    </FetcherForm>
  );
}
