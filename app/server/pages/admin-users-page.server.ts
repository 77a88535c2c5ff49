// The admin's Users pages (/ReciPals/Account/Admin/Users and /…/Users/{id}, docs/rules.md#admin-area):
// the searched table with `Add User`, and one person's detail (role, suspension, deleting). Serves
// both routes; the rules are the users and moderation services'.
import { data, redirect, type AppLoadContext } from "@remix-run/node";

import { withNotice } from "~/lib/notices";
import { paths } from "~/lib/paths";
import { requireAdmin } from "~/server/auth/session.server";
import { queryText, readForm } from "~/server/http/body.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { listUsersForAdmin } from "~/server/queries/admin.server";
import { parsePage } from "~/server/queries/feed.server";
import { listUserPosts } from "~/server/queries/posts.server";
import { getUserProfile } from "~/server/queries/users.server";
import { isSuspendedPerson } from "~/server/queries/visibility.server";
import { emailStateOf, sendPasswordResetFor } from "~/server/services/account-mail-service.server";
import { suspend, unsuspend } from "~/server/services/moderation-service.server";
import { addPlaceholderUser, changeRole, deleteUser } from "~/server/services/users-service.server";

/** The users table: one page of the people the search box matches. */
export async function loadAdminUsersPage(request: Request, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const url = new URL(request.url);
  const q = queryText(url.searchParams, "q").slice(0, 100);
  const page = parsePage(url.searchParams.get("page"));
  return { q, page, ...(await listUsersForAdmin({ q, page })) };
}

/** `Add User`: a placeholder account, its initial password shown once (docs/rules.md#admin-created-users). */
export async function adminUsersPageAction(request: Request, context: AppLoadContext) {
  const admin = await requireAdmin({ request, context });
  const formData = await readForm(request);
  if (readIntent(formData) !== "add-user") return data({ error: "Unknown action." }, { status: 400 });
  // The initial password is random and shown this once; only its hash is stored.
  const outcome = await addPlaceholderUser({ actor: admin });
  if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
  return data({ created: outcome.value }, { status: 201 });
}

/** One person's detail: their profile, their posts' ids and whether they are suspended. */
export async function loadAdminUserPage(request: Request, userId: string, context: AppLoadContext) {
  await requireAdmin({ request, context });
  const user = await getUserProfile(userId);
  invariantResponse(user, "User not found.", 404);
  const posts = await listUserPosts(user.id);
  return { user, postIds: posts.map((p) => p.post_id), suspended: await isSuspendedPerson(user.id), emailConfirmed: (await emailStateOf(user.id)).emailConfirmed };
}

/** The detail's buttons: save the role, delete (after asking), suspend or unsuspend. */
export async function adminUserPageAction(request: Request, userId: string, context: AppLoadContext) {
  const admin = await requireAdmin({ request, context });
  const formData = await readForm(request);
  const intent = readIntent(formData);
  invariantResponse(await getUserProfile(userId), "User not found.", 404);
  if (intent === "save") {
    const role = formData.get("role");
    const outcome = await changeRole({ actor: admin, userId, role: typeof role === "string" ? role : "" });
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUsers());
  }
  if (intent === "delete") {
    if (formData.get("confirm") !== "yes") return { confirm: true as const };
    const outcome = await deleteUser({ actor: admin, userId });
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUsers());
  }
  if (intent === "password-reset") {
    // docs/rules.md#account-email: a link to the account's confirmed address, in the moderation log.
    const outcome = await sendPasswordResetFor(userId, admin.id);
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(withNotice(paths.adminUser(userId), "reset-sent"));
  }
  if (intent === "suspend" || intent === "unsuspend") {
    // docs/rules.md#suspension: every session ends and what they made is hidden from all but admins, or shown again.
    const args = { actor: admin, userId, why: formData.get("why") ?? "" };
    const outcome = intent === "suspend" ? await suspend(args) : await unsuspend(args);
    if (!outcome.ok) return data({ error: outcome.message }, { status: outcome.status });
    return redirect(paths.adminUser(userId));
  }
  return data({ error: "Unknown action." }, { status: 400 });
}
