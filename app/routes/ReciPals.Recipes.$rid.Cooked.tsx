// "I made this" (docs/rules.md#i-made-this): the form to add or change one's entry, shown inside
// the recipe page's "Cooked it" section (this route is nested in the recipe's), so its script is
// loaded only by those who open it. Deleting one's entry, and an ADMIN removing anyone's, post here
// too. What it loads and does is app/server/pages/cooked-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useRef } from "react";

import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { FormAlert, TextArea, TextField, useFocusInvalid } from "~/components/forms";
import { Link } from "~/components/link";
import { COOK_DELETE_MESSAGES, COOK_LIMITS } from "~/lib/cook-limits";
import { cookedPath } from "~/lib/cooks";
import { paths } from "~/lib/paths";
import type { RequestBodyKind } from "~/server/http/body.server";
import { cookedPageAction, loadCookedPage, type CookedFailure } from "~/server/pages/cooked-page.server";

// A form, not content: kept out of search engines.
export const meta: MetaFunction = () => [{ title: "I made this · ReciPals" }, { name: "robots", content: "noindex" }];

// A multipart form with a photo, read and counted by the action itself (app/server/http/body.server.ts).
export const requestBody = "photo-form" satisfies RequestBodyKind;

export const loader = ({ request, params }: LoaderFunctionArgs) => loadCookedPage(request, params.rid ?? "");

export const action = ({ request, params }: ActionFunctionArgs) => cookedPageAction(request, params.rid ?? "");

export default function CookedForm() {
  const { recipeId, own, entry } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  useFocusInvalid(formRef, answer);
  const back = `${paths.recipe(recipeId)}#cooked`;
  if (answer && "confirm" in answer) {
    const { intent, userId } = answer.confirm;
    return (
      <div className="cook-form" id="cook-form">
        <ConfirmStep
          intent={intent}
          message={COOK_DELETE_MESSAGES[intent]}
          label={intent === "uncook" ? "Delete my entry" : "Remove entry"}
          fields={intent === "remove-cook" ? { userId } : {}}
          action={cookedPath(recipeId)}
          cancel={
            <Link to={back} className="button button--ghost">
              Cancel
            </Link>
          }
        />
      </div>
    );
  }
  if (own) {
    return (
      <p className="cook-form notice" id="cook-form">
        This is your recipe: the people who make it say so here. <Link to={back}>Back to the recipe</Link>
      </p>
    );
  }
  const failure = answer && "message" in answer ? answer : undefined;
  const sending = navigation.state === "submitting" && navigation.formAction === cookedPath(recipeId);
  const typed = (name: keyof CookedFailure["fields"], stored: string) => failure?.fields[name] ?? stored;
  const rating = typed("rating", entry ? String(entry.rating) : "");
  const errors = failure?.errors ?? {};
  return (
    <div className="cook-form" id="cook-form">
      <h3>{entry ? "Your entry" : "I made this"}</h3>
      <Form ref={formRef} method="post" action={cookedPath(recipeId)} encType="multipart/form-data" noValidate preventScrollReset>
        {/* A field's own refusal is said by the field (focus moves there); the rest here. */}
        <FormAlert message={failure && Object.keys(failure.errors).length === 0 ? failure.message : null} />
        <input type="hidden" name="mode" value={entry ? "edit" : "add"} />
        <fieldset className="cook-form__rating">
          <legend>Rating</legend>
          {[1, 2, 3, 4, 5].map((value) => (
            <label key={value} className="cook-form__star">
              <input
                type="radio"
                name="rating"
                value={value}
                defaultChecked={rating === String(value)}
                required
                aria-invalid={errors.rating ? true : undefined}
                aria-describedby={errors.rating ? "cook-rating-error" : undefined}
              />
              <span aria-hidden="true">{"★".repeat(value)}</span>
              <span className="visually-hidden">{value === 1 ? "1 star" : `${value} stars`}</span>
            </label>
          ))}
          {errors.rating ? (
            <p className="field__error" id="cook-rating-error">
              {errors.rating}
            </p>
          ) : null}
        </fieldset>
        <TextArea label="Note" name="note" rows={3} maxLength={COOK_LIMITS.noteMax} defaultValue={typed("note", entry?.note ?? "")} error={errors.note} hint={`Optional, at most ${COOK_LIMITS.noteMax} characters.`} />
        <TextField
          label="Servings made"
          name="servings"
          type="number"
          inputMode="numeric"
          min={1}
          max={COOK_LIMITS.servingsMax}
          defaultValue={typed("servings", entry?.servings ? String(entry.servings) : "")}
          error={errors.servings}
        />
        <TextField label="Photo" name="photo" type="file" accept="image/*" error={errors.photo} hint="Optional." />
        {entry?.photo ? (
          <label className="cook-form__remove-photo">
            <input type="checkbox" name="removePhoto" value="yes" /> Remove the photo
          </label>
        ) : null}
        <div className="cook-form__actions">
          <button type="submit" name="intent" value="cooked" className="button" disabled={sending}>
            {sending ? "Saving..." : entry ? "Save changes" : "Share"}
          </button>
          <Link to={`${paths.recipe(recipeId)}#cooked`} className="button button--ghost">
            Cancel
          </Link>
        </div>
      </Form>
      {entry ? (
        <div className="cook-form__delete">
          <ConfirmButton intent="uncook" message={COOK_DELETE_MESSAGES.uncook} label="Delete my entry" action={cookedPath(recipeId)} />
        </div>
      ) : null}
    </div>
  );
}
