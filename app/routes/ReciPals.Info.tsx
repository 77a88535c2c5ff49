import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";

import { SITE } from "~/lib/site";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { projectSourceUrl } from "~/server/http/site.server";
import { Link } from "~/components/link";
import { themeHref } from "~/lib/theme";

export const meta: MetaFunction = () => [{ title: "About · ReciPals" }];

export function loader(args?: LoaderFunctionArgs) {
  // Nothing from the database: no write changes this page.
  scopeSharedCache(args?.context);
  return { sourceUrl: projectSourceUrl() };
}

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
