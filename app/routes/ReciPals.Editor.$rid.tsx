// The recipe editor (/ReciPals/Editor/{id}): the address's contract and the component tree. What
// the page shows and what its buttons do is app/server/pages/editor-page.server.ts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useActionData, useLoaderData, useRouteError } from "@remix-run/react";
import { useMemo } from "react";

import { ErrorPage } from "~/components/error-page";
import { DeleteRecipeConfirmation, RecipeEditor } from "~/components/recipe-editor";
import { paths } from "~/lib/paths";
import { emptyDraft, FIELD, RECIPE_MESSAGES, type EditorResult } from "~/lib/recipe-form";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { stylesheetLinks, type StyledRoute } from "~/root";
import type { RequestBodyKind } from "~/server/http/body.server";
import { editorPageAction, loadEditorPage } from "~/server/pages/editor-page.server";
import editorStyles from "~/styles/editor.css";

export const handle: StyledRoute = { styles: [editorStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data: loaderData }) => [
  {
    title: loaderData
      ? loaderData.mode === "create"
        ? "New recipe · ReciPals"
        : `Edit ${loaderData.draft.name} · ReciPals`
      : "Recipe not found · ReciPals",
  },
];

export const loader = ({ request, params }: LoaderFunctionArgs) => loadEditorPage(request, params.rid ?? "");

// A multipart form with photos, read and counted by the action itself (app/server/http/body.server.ts).
export const requestBody = "photo-form" satisfies RequestBodyKind;

export const action = ({ request, params }: ActionFunctionArgs) => editorPageAction(request, params.rid ?? "");

export default function RecipeEditorRoute() {
  const loaderData = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // A save the server refused before this action ran (the upload queue full, a post from another
  // site): only a message; the draft on screen stays as it is.
  const answered = isEarlyRefusal(answer) ? undefined : answer;
  // A shared link (`?link=`, create mode only) before any answer: shown in `Import from link`, with
  // the cursor there, as if typed. The same object across renders and reloads of the data, so
  // nothing the user typed is reset.
  const shared = useMemo<EditorResult | undefined>(
    () =>
      loaderData.importLink
        ? {
            kind: "draft",
            draft: emptyDraft(),
            fieldErrors: {},
            formError: null,
            pendingPhoto: null,
            photoNotKept: false,
            focus: FIELD.importLink,
            importLink: loaderData.importLink,
            importNotes: [],
          }
        : undefined,
    [loaderData.importLink],
  );
  const result = answered ?? shared;
  const confirming = result?.kind === "confirm-delete";
  return (
    <section className="editor-page">
      <h1 className="page-title">{loaderData.mode === "create" ? "New Recipe" : "Edit Recipe"}</h1>
      {confirming ? <DeleteRecipeConfirmation backTo={paths.editor(loaderData.rid)} /> : null}
      <div hidden={confirming}>
        <RecipeEditor
          key={loaderData.rid}
          mode={loaderData.mode}
          initialDraft={loaderData.draft}
          result={confirming ? undefined : result}
          refusal={earlyRefusalMessage(answer)}
          currentPhoto={loaderData.photo}
          cancelTo={loaderData.cancelTo}
        />
      </div>
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const message = typeof error.data === "string" && error.data ? error.data : undefined;
    if (error.status === 404) return <ErrorPage status={404} message={message ?? RECIPE_MESSAGES.notFound} />;
    if (error.status === 403) return <ErrorPage status={403} message={message ?? RECIPE_MESSAGES.notAllowed} />;
    return <ErrorPage status={error.status} message={message} />;
  }
  throw error;
}
