import type { MetaFunction } from "@remix-run/node";

import { SITE } from "~/lib/site";

export const meta: MetaFunction = () => [{ title: "About · ReciPals" }];

export default function InfoRoute() {
  return (
    <article className="prose">
      <h1>About ReciPals</h1>
      <p>
        ReciPals is a place to share recipes, follow friends and find something good to cook. It was created by{" "}
        {SITE.creators.join(" and ")}.
      </p>
      <h2>Source</h2>
      <ul>
        <li>
          Original web app: <a href={SITE.originalRepositories.webApp}>{SITE.originalRepositories.webApp}</a>
        </li>
        <li>
          Original server: <a href={SITE.originalRepositories.server}>{SITE.originalRepositories.server}</a>
        </li>
        <li>
          This version: <a href={SITE.thisProjectSource}>{SITE.thisProjectSource}</a>
        </li>
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
