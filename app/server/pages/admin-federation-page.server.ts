// Admin → Federation (/ReciPals/Account/Admin/Federation, docs/federation.md#safety): the blocked
// domains, and what Block domain and Unblock post. The rules are the federation service's.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { blockDomain, listBlockedDomains, unblockDomain } from "~/server/services/federation-service.server";

/** The blocked domains, newest first. */
export async function loadAdminFederationPage(request: Request, context: AppLoadContext) {
  const actor = await requireAdmin({ request, context });
  const listed = await listBlockedDomains({ actor });
  invariantResponse(listed.ok, listed.ok ? "" : listed.message, listed.ok ? 200 : listed.status);
  return { domains: listed.value.map((row) => ({ domain: row.domain, since: new Date(row.created_at).toISOString().slice(0, 10) })) };
}

/** Block domain (intent "block") or Unblock (intent "unblock"); a refusal comes back with the typed domain. */
export async function adminFederationPageAction(request: Request, context: AppLoadContext) {
  const actor = await requireAdmin({ request, context });
  const form = await readForm(request);
  const intent = readIntent(form);
  invariantResponse(intent === "block" || intent === "unblock", "Unknown action.", 400);
  const domain = form.get("domain");
  const outcome = intent === "block" ? await blockDomain({ actor, domain }) : await unblockDomain({ actor, domain });
  if (!outcome.ok) return data({ error: outcome.message, domain: typeof domain === "string" ? domain : "" }, { status: outcome.status });
  return redirect(`${paths.adminFederation()}?${intent === "block" ? "blocked" : "unblocked"}=${encodeURIComponent(outcome.value.domain)}`);
}
