import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse, useLoaderData, useRouteError } from "@remix-run/react";

import { Avatar } from "~/components/avatar";
import { ErrorPage } from "~/components/error-page";
import { getUserProfile } from "~/server/queries/users.server";
import { requireUser } from "~/server/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.profile.username} · ReciPals` : "User not found · ReciPals" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const viewer = await requireUser(request);
  const profile = await getUserProfile(params.uid ?? "");
  if (!profile) throw new Response("User not found.", { status: 404 });
  return { profile, isOwn: viewer.id === profile.id };
}

export default function ProfileRoute() {
  const { profile } = useLoaderData<typeof loader>();
  return (
    <section className="profile">
      <header className="profile__header">
        <Avatar src={profile.profile} size={96} />
        <div>
          <h1 className="profile__username">{profile.username}</h1>
          <p className="profile__name">{profile.name}</p>
        </div>
      </header>
      {profile.bio ? <p className="profile__bio">{profile.bio}</p> : null}
      {profile.tags.length > 0 ? (
        <ul className="chips" aria-label="Tags">
          {profile.tags.map((tag) => (
            <li key={tag} className="chip">
              {tag}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="User not found." />;
  throw error;
}
