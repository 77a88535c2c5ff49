import { Form } from "@remix-run/react";
import { useId } from "react";

import { FIELD, RECIPE_MESSAGES } from "~/lib/recipe-form";
import { Link } from "../link";

/**
 * The no-JavaScript confirmation step of Delete Recipe (docs/rules.md#confirmations): the same
 * question the browser's confirm dialog asks, and a Delete button that submits again with the
 * confirmation.
 */
export function DeleteRecipeConfirmation({ backTo }: { backTo: string }) {
  const headingId = useId();
  return (
    <section className="editor-confirm" aria-labelledby={headingId}>
      <h2 id={headingId} className="editor-confirm__title">
        Delete Recipe
      </h2>
      <p role="alert">{RECIPE_MESSAGES.deleteConfirm}</p>
      <Form method="post" className="actions editor-confirm__actions">
        <input type="hidden" name={FIELD.mode} value="edit" />
        <input type="hidden" name={FIELD.confirm} value="yes" />
        <Link to={backTo} className="button button--ghost">
          Cancel
        </Link>
        <button type="submit" name={FIELD.intent} value="delete" className="button button--danger">
          Delete
        </button>
      </Form>
    </section>
  );
}
