// About (/ReciPals/Info): the address's contract and the page; the texts are app/lib/site.ts,
// the source's address comes from app/server/pages/info-page.server.ts.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { Link } from "~/components/link";
import { SITE } from "~/lib/site";
import { themeHref } from "~/lib/theme";
import { loadInfoPage } from "~/server/pages/info-page.server";

export const meta: MetaFunction = () => [{ title: "About · ReciPals" }];

export const loader = (args?: LoaderFunctionArgs) => loadInfoPage(args?.context);

export default function InfoRoute() {
  const { sourceUrl } = useLoaderData<typeof loader>();
  return (
    <article className="prose">
      <h1>About ReciPals</h1>
      <p>
        ReciPals is a place to share recipes, follow friends and find something good to cook. It was created by{" "}
        {SITE.creators.join(" and ")}.
      </p>
      <p>
        Light or dark? Choose a <Link to={themeHref("/ReciPals/Info")}>Theme</Link>: ReciPals follows your device until you do.
      </p>
      <h2>Source</h2>
      <ul>
        <li>
          Original web app: <a href={SITE.originalRepositories.webApp}>{SITE.originalRepositories.webApp}</a>
        </li>
        <li>
          Original server: <a href={SITE.originalRepositories.server}>{SITE.originalRepositories.server}</a>
        </li>
        {sourceUrl ? (
          <li>
            This version: <a href={sourceUrl}>{sourceUrl}</a>
          </li>
        ) : null}
      </ul>
      <h2>Features</h2>
      <dl className="feature-list">
        {SITE.features.map((feature) => (
          <div key={feature.title}>
            <dt>{feature.title}</dt>
            <dd>{feature.text}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}
