import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useRef } from "react";

import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { FormAlert, TextArea, TextField, useFocusInvalid } from "~/components/forms";
import { Link } from "~/components/link";
import { cookedPath } from "~/lib/cooks";
import { COOK_LIMITS, COOK_MESSAGES } from "~/lib/cook-limits";
import { paths } from "~/lib/paths";
import { getLens, requireUser } from "~/server/auth/session.server";
import { LimitReachedError, takeUploadSlot } from "~/server/auth/limits.server";
import type { RequestBodyKind } from "~/server/http/body.server";
import { fileBytes, FormReadError, readMultipartFormLenient } from "~/server/http/multipart.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { ImageError, IMAGE_MESSAGES, processImage } from "~/server/media/images.server";
import type { PicturePlan } from "~/server/media/pictures.server";
import { getOwnCook } from "~/server/queries/cooks.server";
import { getRecipeCreator } from "~/server/queries/recipes.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";
import { removeCook, saveCook, type CookPhoto } from "~/server/services/cooks.server";
import { done, refusal, type Outcome, type RefusalStatus } from "~/server/services/outcome.server";

// "I made this" (docs/rules.md#i-made-this): the form to add or change one's entry, shown inside
// the recipe page's "Cooked it" section (this route is nested in the recipe's), so its script is
// loaded only by those who open it. Deleting one's entry, and an ADMIN removing anyone's, post here
// too.

// A form, not content: kept out of search engines.
export const meta: MetaFunction = () => [{ title: "I made this · ReciPals" }, { name: "robots", content: "noindex" }];

// A multipart form with a photo, read and counted by the action itself (app/server/http/body.server.ts).
export const requestBody = "photo-form" satisfies RequestBodyKind;

const FIELDS = ["rating", "note", "servings"] as const;
type Field = (typeof FIELDS)[number] | "photo";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const recipeId = params.rid ?? "";
  const user = await requireUser(request, { redirectTo: `${cookedPath(recipeId)}#cook-form` });
  const creatorId = await getRecipeCreator(recipeId);
  invariantResponse(creatorId !== undefined, "Recipe not found.", 404);
  invariantResponse(!(await isHidden(await getLens(request), creatorId)), UNAVAILABLE_RECIPE, 404);
  // One's own recipe has no form (an ADMIN may still be asked to confirm a removal here).
  const entry = creatorId === user.id ? undefined : await getOwnCook(user.id, recipeId);
  return { recipeId, own: creatorId === user.id, entry: entry ?? null };
}

interface Failure {
  message: string;
  errors: Partial<Record<Field, string>>;
  fields: Partial<Record<(typeof FIELDS)[number], string>>;
}

function refuse(status: number, failure: Failure) {
  return data(failure, { status });
}

const DELETE_MESSAGES = {
  uncook: "Delete your entry? This cannot be undone.",
  "remove-cook": "Remove this entry? This cannot be undone.",
} as const;

export async function action({ request, params }: ActionFunctionArgs) {
  const recipeId = params.rid ?? "";
  const back = `${paths.recipe(recipeId)}#cooked`;
  // A visitor is sent to sign in before a byte of the body is read.
  const user = await requireUser(request, { redirectTo: `${cookedPath(recipeId)}#cook-form` });
  let formData: FormData;
  let photoTooLarge: boolean;
  try {
    const form = await readMultipartFormLenient(request);
    formData = form.formData;
    photoTooLarge = form.oversizedFiles.length > 0;
  } catch (error) {
    if (!(error instanceof FormReadError)) throw error;
    // Beside the photo, unless a text field was refused while reading (NUL).
    return refuse(error.status, { message: error.message, errors: error.textField === null ? { photo: error.message } : {}, fields: {} });
  }
  const intent = readIntent(formData);

  if (intent === "uncook" || intent === "remove-cook") {
    const who = formData.get("userId");
    // Deleting asks first (docs/rules.md#confirmations): with JavaScript a dialog, else this step.
    if (formData.get("confirm") !== "yes") return { confirm: { intent: intent as keyof typeof DELETE_MESSAGES, userId: typeof who === "string" ? who : "" } };
    const outcome = await removeCook({ actor: user, recipeId, userId: intent === "remove-cook" && typeof who === "string" ? who : user.id });
    if (!outcome.ok && outcome.status !== 404) throw new Response(outcome.message, { status: outcome.status });
    return redirect(back);
  }
  if (intent !== "cooked") return refuse(400, { message: "Unknown action.", errors: {}, fields: {} });

  const fields: Failure["fields"] = {};
  for (const name of FIELDS) {
    const value = formData.get(name);
    if (typeof value === "string") fields[name] = value;
  }
  if (photoTooLarge) return refuse(413, { message: IMAGE_MESSAGES.tooLarge, errors: { photo: IMAGE_MESSAGES.tooLarge }, fields });
  const bytes = await fileBytes(formData.get("photo"));
  // Read only once the service has accepted the rest of the entry.
  const upload = async (): Promise<Outcome<PicturePlan>> => {
    try {
      await takeUploadSlot(user.id);
      return done({ kind: "upload", image: await processImage(bytes!) });
    } catch (error) {
      if (error instanceof LimitReachedError) return refusal(429, error.message, { errors: { photo: error.message } });
      if (!(error instanceof ImageError)) throw error;
      return refusal(error.status as RefusalStatus, error.message, { errors: { photo: error.message } });
    }
  };
  const photo: CookPhoto = bytes ? upload : formData.get("removePhoto") === "yes" ? { kind: "set", url: "" } : null;
  const outcome = await saveCook({
    actor: user,
    recipeId,
    fields: { rating: fields.rating ?? "", note: fields.note ?? "", servings: fields.servings ?? "" },
    photo,
    mode: formData.get("mode") === "edit" ? "edit" : "add",
  });
  if (!outcome.ok) {
    if (outcome.status === 404 && outcome.message === COOK_MESSAGES.recipeMissing) throw new Response(outcome.message, { status: 404 });
    return refuse(outcome.status, { message: outcome.message, errors: (outcome.errors ?? {}) as Failure["errors"], fields });
  }
  return redirect(back);
}

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
          message={DELETE_MESSAGES[intent]}
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
  const typed = (name: (typeof FIELDS)[number], stored: string) => failure?.fields[name] ?? stored;
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
          <ConfirmButton intent="uncook" message={DELETE_MESSAGES.uncook} label="Delete my entry" action={cookedPath(recipeId)} />
        </div>
      ) : null}
    </div>
  );
}
