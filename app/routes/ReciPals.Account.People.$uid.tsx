import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { blockQuestion } from "~/components/person-actions";
import { personPath } from "~/lib/blocking";
import { paths, safeRedirect } from "~/lib/paths";
import { getLens, requireUser } from "~/server/auth/session.server";
import { contains, isHidden } from "~/server/queries/visibility.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { getSessionUserById } from "~/server/queries/users.server";
import { PEOPLE_MESSAGES, setBlock, setMute } from "~/server/services/people.server";

// Block, unblock, mute and unmute (docs/rules.md#blocking-and-muting), posted from a profile and
// the profile editor's lists as plain forms. A block asks first: with JavaScript in a confirm
// dialog (the form then carries confirm=yes), without it on this page, which posts again.

export const meta: MetaFunction = () => [{ title: "Block · ReciPals" }];

/** Where to go back to: a same-site path the form or the address gave, else the person's profile. */
function backTo(given: FormDataEntryValue | string | null, userId: string): string {
  return safeRedirect(given, paths.profile(userId));
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const userId = params.uid ?? "";
  const url = new URL(request.url);
  // Nothing changes on GET: only the block question has a page.
  if (url.searchParams.get("intent") !== "block") return redirect(paths.profile(userId));
  invariantResponse(userId !== viewer.id, PEOPLE_MESSAGES.blockSelf, 400);
  const person = await getSessionUserById(userId);
  invariantResponse(person, PEOPLE_MESSAGES.missing, 404);
  // Someone who blocked the viewer stays unnamed, as on their profile.
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, userId)) || (await contains(lens.blocking, userId)), PEOPLE_MESSAGES.unavailable, 404);
  return { userId, username: person.username, returnTo: backTo(url.searchParams.get("returnTo"), userId) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const userId = params.uid ?? "";
  const viewer = await requireUser(request, { redirectTo: paths.profile(userId) });
  const formData = await readForm(request);
  const intent = readIntent(formData);
  const returnTo = backTo(formData.get("returnTo"), userId);
  if (intent === "block" && formData.get("confirm") !== "yes") {
    return redirect(`${personPath(userId)}?${new URLSearchParams({ intent, returnTo })}`);
  }
  const outcome =
    intent === "block" || intent === "unblock"
      ? await setBlock({ actor: viewer, targetId: userId, blocked: intent === "block" })
      : intent === "mute" || intent === "unmute"
        ? await setMute({ actor: viewer, targetId: userId, muted: intent === "mute" })
        : null;
  invariantResponse(outcome, "Unknown action.", 400);
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  return redirect(returnTo);
}

export default function BlockQuestionPage() {
  const { userId, username, returnTo } = useLoaderData<typeof loader>();
  return (
    <section className="auth-card" aria-labelledby="block-heading">
      <h1 id="block-heading">Block {username}</h1>
      <ConfirmStep
        action={personPath(userId)}
        intent="block"
        message={blockQuestion(username)}
        label="Block"
        fields={{ returnTo }}
        cancel={
          <Link to={returnTo} className="button button--ghost">
            Cancel
          </Link>
        }
      />
    </section>
  );
}

export { ActionRouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
