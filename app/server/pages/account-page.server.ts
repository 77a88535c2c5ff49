// One's own account (docs/rules.md#own-account): /ReciPals/Account (one's profile, or Login),
// "Delete my account" (/ReciPals/Account/Delete) and "Download my data" (/ReciPals/Account/Export).
// The rules are the account service's.
import { Readable } from "node:stream";

import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { DELETE_ACCOUNT_PATH } from "~/lib/account";
import { paths } from "~/lib/paths";
import { endSession, getUser, getUserId, requireUser, SIGNED_OUT_HEADERS } from "~/server/auth/session.server";
import { readForm } from "~/server/http/body.server";
import { clientAddress } from "~/server/http/ip.server";
import { invariantResponse } from "~/server/http/responses.server";
import { siteOrigin } from "~/server/http/site.server";
import { deleteOwnAccount, exportAccount } from "~/server/services/account-service.server";

/** /ReciPals/Account: someone signed in goes to their profile, a visitor to Login. */
export async function loadAccountPage(request: Request) {
  const userId = await getUserId(request);
  return redirect(userId ? paths.profile(userId) : paths.login());
}

/** The deletion form (the signed-in person's), or, once done and signed out, that it is done. */
export async function loadDeleteAccountPage(request: Request) {
  // After the deletion this browser is signed out: the page says it is done.
  if (new URL(request.url).searchParams.has("done") && !(await getUser(request))) return { deleted: true as const };
  const user = await requireUser(request);
  return { deleted: false as const, userId: user.id, username: user.username };
}

/** The password and a ticked box: the account goes, every session ends and this browser is signed out. */
export async function deleteAccountPageAction(request: Request, context: AppLoadContext) {
  const user = await requireUser(request);
  const form = await readForm(request);
  const outcome = await deleteOwnAccount({ actor: user, password: form.get("password"), confirm: form.get("confirm"), address: clientAddress(context) });
  if (!outcome.ok) {
    const headers: Record<string, string> = outcome.retryAfterSeconds ? { "Retry-After": String(outcome.retryAfterSeconds) } : {};
    return data({ message: outcome.message, errors: outcome.errors ?? {} }, { status: outcome.status, headers });
  }
  return redirect(`${DELETE_ACCOUNT_PATH}?done=1`, { headers: { ...SIGNED_OUT_HEADERS, "Set-Cookie": await endSession(request) } });
}

// "Download my data": the signed-in person's data as a zip, streamed as it is made. Personal:
// never kept by any cache.
/** The signed-in person's data as a zip download. */
export async function loadExportPage(request: Request) {
  const user = await requireUser(request);
  const outcome = await exportAccount({ actor: user, origin: siteOrigin(request) });
  invariantResponse(outcome.ok, outcome.ok ? "" : outcome.message, outcome.ok ? 200 : outcome.status);
  const { stream, filename } = outcome.value;
  return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
    headers: {
      "Content-Type": "application/zip",
      "Content-Disposition": `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, "_")}"`,
      "Cache-Control": "private, no-store",
    },
  });
}
