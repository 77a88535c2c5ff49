// The profile editor (/ReciPals/Account/Profile/{id}/Edit): the address's contract and the
// component tree. What the form starts from and what a save does is
// app/server/pages/profile-edit-page.server.ts.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useActionData, useLoaderData, useNavigation, useRouteError } from "@remix-run/react";

import { ErrorPage } from "~/components/error-page";
import { BlockedAndMuted } from "~/components/person-actions";
import { ProfileEditor } from "~/components/profile-editor";
import { DELETE_ACCOUNT_PATH, EXPORT_PATH } from "~/lib/account";
import { paths } from "~/lib/paths";
import { earlyRefusalMessage, isEarlyRefusal } from "~/lib/refusal";
import { stylesheetLinks, type StyledRoute } from "~/root";
import type { RequestBodyKind } from "~/server/http/body.server";
import { loadProfileEditPage, profileEditPageAction } from "~/server/pages/profile-edit-page.server";
import profileStyles from "~/styles/profile.css";

export const handle: StyledRoute = { styles: [profileStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction = () => [{ title: "Edit Profile · ReciPals" }];

export const loader = ({ request, params }: LoaderFunctionArgs) => loadProfileEditPage(request, params.uid ?? "");

// A multipart form with photos, read and counted by the action itself (app/server/http/body.server.ts).
export const requestBody = "photo-form" satisfies RequestBodyKind;

export const action = ({ request, params, context }: ActionFunctionArgs) => profileEditPageAction(request, params.uid ?? "", context);

export default function ProfileEditRoute() {
  const { user, viewerIsAdmin, ownProfile, blocked, muted } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // A save the server refused before this action ran (busy, too large, cross-site): said in the
  // form's alert; the form keeps everything typed and chosen.
  const refusal = earlyRefusalMessage(answer);
  const failure = isEarlyRefusal(answer) ? undefined : answer;
  const navigation = useNavigation();
  // Only the editor's own (multipart) submission; Signout is a plain form.
  const busy = navigation.state === "submitting" && navigation.formEncType === "multipart/form-data";
  return (
    <section className="profile-edit">
      <h1 className="page-title" id="profile-editor-title">
        Edit Profile
      </h1>
      <ProfileEditor user={user} failure={failure} refusal={refusal} viewerIsAdmin={viewerIsAdmin} ownProfile={ownProfile} busy={busy} />
      {ownProfile ? <BlockedAndMuted blocked={blocked} muted={muted} returnTo={paths.profileEdit(user.id)} /> : null}
      {ownProfile ? (
        <section className="people-list" aria-labelledby="own-data-title">
          <h2 id="own-data-title">Your data</h2>
          <div className="person-actions">
            <a href={EXPORT_PATH} download className="button button--ghost">
              Download my data
            </a>
            <a href={DELETE_ACCOUNT_PATH} className="button button--ghost button--danger">
              Delete my account
            </a>
          </div>
        </section>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (!isRouteErrorResponse(error)) throw error;
  const message = typeof error.data === "string" && error.data ? error.data : undefined;
  return <ErrorPage status={error.status} message={message} />;
}
