// A recipe's Recipe tab in the admin area (/ReciPals/Account/Admin/Recipes/{id}): the address's
// contract and the component tree; what it shows and what `Save` does is
// app/server/pages/admin-recipe-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useState } from "react";

import { Link } from "~/components/link";
import { TagChips } from "~/components/tag-chips";
import { useChangeEffect } from "~/lib/hooks";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import type { RequestBodyKind } from "~/server/http/body.server";
import { adminRecipeTextPageAction, loadAdminRecipeTextPage } from "~/server/pages/admin-recipe-page.server";

type Editing = "ingredients" | "instructions" | null;

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadAdminRecipeTextPage(request, params.rid ?? "", context);

// The ingredient and step texts are long (up to 200 lines of 2,000 characters): a larger form limit.
export const requestBody = "long-text-form" satisfies RequestBodyKind;

export const action = ({ request, params, context }: ActionFunctionArgs) => adminRecipeTextPageAction(request, params.rid ?? "", context);

export default function AdminRecipeTab() {
  const loaded = useLoaderData<typeof loader>();
  const { recipe, ingredientsText, stepsText } = loaded;
  const answer = useActionData<typeof action>();
  // A save refused before the action ran (app/lib/refusal.ts) is said under the open editor, whose text stays.
  const refusal = earlyRefusalMessage(answer);
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const [searchParams] = useSearchParams();
  // Without JavaScript the open editor is a page state (?edit=…); with it, local state.
  const fromUrl = searchParams.get("edit");
  const [localEditing, setLocalEditing] = useState<Editing>(null);
  // A successful save redirects and reloads: close the inline editor then.
  useChangeEffect(loaded, () => setLocalEditing(null));
  const editing: Editing =
    (failure?.editing as Editing) ?? localEditing ?? (fromUrl === "ingredients" || fromUrl === "instructions" ? fromUrl : null);

  const openLink = (which: Exclude<Editing, null>, label: string) => (
    <Link
      to={`${paths.adminRecipe(recipe.recipe_id)}?edit=${which}`}
      className="button button--ghost"
      // Whenever the script handles the press (hydration may still be finishing), it opens the editor in place.
      onClick={(event) => {
        event.preventDefault();
        setLocalEditing(which);
      }}
    >
      {label}
    </Link>
  );

  return (
    <div className="admin-recipe-tab">
      <section aria-labelledby="admin-ingredients">
        <div className="admin-section-head">
          <h3 id="admin-ingredients">Ingredients</h3>
          {editing !== "ingredients" ? openLink("ingredients", "Edit Ingredients") : null}
        </div>
        {editing === "ingredients" ? (
          <TextEditor
            label="Ingredients"
            intent="save-ingredients"
            initial={failure?.editing === "ingredients" ? failure.text : ingredientsText}
            error={failure?.editing === "ingredients" ? failure.error : refusal}
            hint="A 'Section Name:' line, then one ingredient per line; a blank line starts the next section."
            cancelTo={paths.adminRecipe(recipe.recipe_id)}
            onCancel={() => setLocalEditing(null)}
          />
        ) : (
          <div className="scroll-200">
            {recipe.ingredients_sec.map((section) => (
              <div key={section._id}>
                <h4>{section.title}</h4>
                <ul>
                  {section.ingredients.map((line, index) => (
                    <li key={index}>{line}</li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        )}
      </section>
      <section aria-labelledby="admin-steps">
        <div className="admin-section-head">
          <h3 id="admin-steps">Instructions</h3>
          {editing !== "instructions" ? openLink("instructions", "Edit Instructions") : null}
        </div>
        {editing === "instructions" ? (
          <TextEditor
            label="Instructions"
            intent="save-instructions"
            initial={failure?.editing === "instructions" ? failure.text : stepsText}
            error={failure?.editing === "instructions" ? failure.error : refusal}
            hint="One step per line."
            cancelTo={paths.adminRecipe(recipe.recipe_id)}
            onCancel={() => setLocalEditing(null)}
          />
        ) : (
          <ol className="scroll-200">
            {recipe.steps.map((step, index) => (
              <li key={index}>{step}</li>
            ))}
          </ol>
        )}
      </section>
      <TagChips tags={recipe.tags} />
    </div>
  );
}

function TextEditor({
  label,
  intent,
  initial,
  error,
  hint,
  cancelTo,
  onCancel,
}: {
  label: string;
  intent: string;
  initial: string;
  error: string | null;
  hint: string;
  /** The tab without the editor open. */
  cancelTo: string;
  onCancel: () => void;
}) {
  const busy = useNavigation().formData?.get("intent") === intent;
  const id = `admin-${intent}`;
  return (
    <Form method="post" className="stack" noValidate>
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <textarea
          id={id}
          name="text"
          rows={12}
          defaultValue={initial}
          aria-invalid={error ? true : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ""}`}
        />
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
        {error ? (
          <p className="field__error" id={`${id}-error`} role="alert">
            {error}
          </p>
        ) : null}
      </div>
      <div className="actions">
        <Link to={cancelTo} className="button button--ghost" onClick={onCancel}>
          Cancel
        </Link>
        <button type="submit" name="intent" value={intent} className="button" disabled={busy}>
          Save
        </button>
      </div>
    </Form>
  );
}
