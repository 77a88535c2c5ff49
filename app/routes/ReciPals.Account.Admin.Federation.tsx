import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";

import { adminFederationPageAction, loadAdminFederationPage } from "~/server/pages/admin-federation-page.server";

// Admin → Federation (docs/federation.md#safety): block a whole server — nothing from it is
// accepted or shown, nothing is sent to it, its people's follows here end — and lift a block.
// Plain forms: the same without JavaScript. What it shows and does is
// app/server/pages/admin-federation-page.server.ts.

export const meta: MetaFunction = () => [{ title: "Federation · Admin · ReciPals" }];

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminFederationPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => adminFederationPageAction(request, context);

export default function AdminFederation() {
  const { domains } = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const blocked = searchParams.get("blocked");
  const unblocked = searchParams.get("unblocked");
  return (
    <section className="admin-panel admin-federation" aria-labelledby="federation-heading">
      <h1 className="page-title" id="federation-heading">
        Federation
      </h1>
      <p className="muted">People on other servers (Mastodon, other ReciPals) can follow people here. Block a server to stop everything from it and to it.</p>
      {blocked ? (
        <p className="notice" role="status">
          Blocked {blocked}.
        </p>
      ) : unblocked ? (
        <p className="notice" role="status">
          Unblocked {unblocked}.
        </p>
      ) : null}
      {/* A new form after each block or unblock: the field is empty again. */}
      <Form method="post" className="admin-federation__block" key={blocked ?? unblocked ?? ""}>
        <label htmlFor="block-domain">Domain</label>
        <input
          id="block-domain"
          name="domain"
          type="text"
          inputMode="url"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="social.example"
          defaultValue={refused?.domain ?? ""}
          aria-invalid={refused ? true : undefined}
          aria-describedby={refused ? "block-domain-error" : undefined}
          required
        />
        <button type="submit" name="intent" value="block" className="button" disabled={busy}>
          Block domain
        </button>
      </Form>
      {refused ? (
        <p className="form-alert" role="alert" id="block-domain-error">
          {refused.error}
        </p>
      ) : null}
      <h2>Blocked domains</h2>
      {domains.length === 0 ? (
        <p className="empty-state">No server is blocked.</p>
      ) : (
        <ul className="admin-federation__list" aria-label="Blocked domains">
          {domains.map(({ domain, since }) => (
            <li key={domain}>
              <span>
                <strong>{domain}</strong> <span className="muted">since {since}</span>
              </span>
              <Form method="post">
                <input type="hidden" name="domain" value={domain} />
                <button type="submit" name="intent" value="unblock" className="button button--ghost" aria-label={`Unblock ${domain}`} disabled={busy}>
                  Unblock
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
