import { describe, expect, it } from "vitest";

import { REPORT_MESSAGES, REPORTS_PER_DAY, SUSPENDED_MESSAGE } from "~/lib/reports";
import { action as adminReportsAction, loader as adminReportsLoader } from "~/routes/ReciPals.Account.Admin.Reports";
import { action as adminUserAction } from "~/routes/ReciPals.Account.Admin.Users.$uid";
import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { action as reportAction, loader as reportLoader } from "~/routes/ReciPals.Report";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import * as reportsRoute from "~/routes/api.reports";
import * as resolveRoute from "~/routes/api.reports.resolve";
import * as userRoute from "~/routes/api.users.$id";
import { getUser } from "~/server/auth/session.server";
import { checkCredentials, LoginError } from "~/server/auth/sign-in.server";
import { db } from "~/server/db/connection.server";
import * as signinRoute from "~/routes/api.users.signin";
import { setFollowing } from "~/server/services/follows-service.server";
import { addComment, setLike, setSaved } from "~/server/services/interactions-service.server";
import { setBlock } from "~/server/services/people-service.server";
import { addRecipeToList } from "~/server/services/shopping-service.server";
import { fileReport, getModerationQueue, moderate, MODERATION_MESSAGES, suspend, unsuspend } from "~/server/services/moderation-service.server";
import type { Outcome } from "~/server/services/outcome-service.server";

import { call } from "../support/api";
import { makeRecipeWithPost } from "../support/factories";
import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

// Reports, the moderation queue and suspension (docs/rules.md#reports-and-moderation,
// docs/rules.md#suspension) against the real database.

type Person = Awaited<ReturnType<typeof makeUser>> & { cookie: string };

async function person(role: "USER" | "ADMIN" = "USER"): Promise<Person> {
  const user = await makeUser({ role });
  return { ...user, cookie: await signedInCookie(user.id) };
}

function ok<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(`refused ${outcome.status}: ${outcome.message}`);
  return outcome.value;
}

/** An author with a recipe (and its post) and a comment by someone else on it. */
async function content() {
  const author = await person();
  const commenter = await person();
  const recipe = await makeRecipeWithPost({ userId: author.id });
  const comment = ok(await addComment({ actor: commenter, postId: recipe.postId!, text: "Buy cheap pills at spam.example" }));
  return { author, commenter, recipeId: recipe.recipeId, postId: recipe.postId!, commentId: comment.comment_id };
}

const openReports = (kind: string, id: string) =>
  db.selectFrom("reports").select(["reporter_id", "reason", "text"]).where("target_kind", "=", kind as never).where("target_id", "=", id).where("resolved_at", "is", null).execute();

describe("filing a report", () => {
  it("reports a post, a comment and a person; one open report per person and target", async () => {
    const c = await content();
    const reporter = await person();
    ok(await fileReport({ actor: reporter, kind: "post", targetId: c.postId, reason: "spam", text: "" }));
    ok(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "harassment", text: "  Rude.  " }));
    ok(await fileReport({ actor: reporter, kind: "user", targetId: c.commenter.id, reason: "other", text: "" }));
    expect(await openReports("comment", c.commentId)).toEqual([{ reporter_id: reporter.id, reason: "harassment", text: "Rude." }]);
    expect(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "spam", text: "" })).toMatchObject({ ok: false, status: 409, message: REPORT_MESSAGES.twice });
    expect(await openReports("comment", c.commentId)).toHaveLength(1);
  });

  it("refuses bad input with a clear message and writes nothing", async () => {
    const c = await content();
    const reporter = await person();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ kind: "post", targetId: c.postId, reason: "", text: "" }, 400, REPORT_MESSAGES.reason],
      [{ kind: "post", targetId: c.postId, reason: "boring", text: "" }, 400, REPORT_MESSAGES.reason],
      [{ kind: "post", targetId: c.postId, reason: "spam", text: "x".repeat(501) }, 400, REPORT_MESSAGES.tooLong],
      [{ kind: "post", targetId: "forged-id", reason: "spam", text: "" }, 404, REPORT_MESSAGES.gone],
      [{ kind: "recipe", targetId: c.postId, reason: "spam", text: "" }, 404, REPORT_MESSAGES.gone],
      [{ kind: "post", targetId: "", reason: "spam", text: "" }, 404, REPORT_MESSAGES.gone],
    ];
    for (const [input, status, message] of cases) {
      expect(await fileReport({ actor: reporter, ...input } as never), JSON.stringify(input).slice(0, 80)).toMatchObject({ ok: false, status, message });
    }
    expect(await fileReport({ actor: c.author, kind: "post", targetId: c.postId, reason: "spam", text: "" })).toMatchObject({ ok: false, status: 400, message: REPORT_MESSAGES.own });
    expect(await db.selectFrom("reports").select("id").where("reporter_id", "in", [reporter.id, c.author.id]).execute()).toEqual([]);
  });

  it(`allows ${REPORTS_PER_DAY} reports a day, then says so`, async () => {
    const reporter = await person();
    const targets = await Promise.all(Array.from({ length: REPORTS_PER_DAY + 1 }, () => makeUser()));
    for (const target of targets.slice(0, REPORTS_PER_DAY)) ok(await fileReport({ actor: reporter, kind: "user", targetId: target.id, reason: "spam", text: "" }));
    expect(await fileReport({ actor: reporter, kind: "user", targetId: targets.at(-1)!.id, reason: "spam", text: "" })).toMatchObject({ ok: false, status: 429, message: REPORT_MESSAGES.limit });
    // A day later (the window is the last 24 hours) they may report again.
    const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000 - 60_000).toISOString();
    await db.updateTable("reports").set({ created_at: dayAgo }).where("reporter_id", "=", reporter.id).execute();
    ok(await fileReport({ actor: reporter, kind: "user", targetId: targets.at(-1)!.id, reason: "spam", text: "" }));
  });

  it("content hidden from the reporter (a block, a suspension) is not there to report, on the page or through the API", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    ok(await setBlock({ actor: c.author, targetId: reporter.id, blocked: true }));
    // The commenter's comment sits on the blocker's post: hidden with it.
    for (const [kind, id] of [
      ["post", c.postId],
      ["comment", c.commentId],
      ["user", c.author.id],
    ] as const) {
      expect((await call(reportsRoute, "POST", "/api/reports", { cookie: reporter.cookie, body: { kind, target_id: id, reason: "spam" } })).status).toBe(404);
      expect(((await settle(() => reportLoader(routeArgs(getRequest(`/ReciPals/Report?kind=${kind}&id=${id}`, reporter.cookie))))) as Response).status).toBe(404);
    }
    const other = await person();
    ok(await suspend({ actor: admin, userId: c.commenter.id, why: "" }));
    expect((await call(reportsRoute, "POST", "/api/reports", { cookie: other.cookie, body: { kind: "comment", target_id: c.commentId, reason: "spam" } })).status).toBe(404);
    expect(await db.selectFrom("reports").select("id").where("reporter_id", "in", [reporter.id, other.id]).execute()).toEqual([]);
  });

  it("the report page: a form without JavaScript, the thanks, and the message beside the reason", async () => {
    const c = await content();
    const reporter = await person();
    const path = `/ReciPals/Report?kind=comment&id=${c.commentId}`;
    expect(await reportLoader(routeArgs(getRequest(path, reporter.cookie)))).toMatchObject({ kind: "comment", label: "Buy cheap pills at spam.example", owner: c.commenter.username });
    const missing = dataOf<{ message: string; errors: Record<string, string> }>(await reportAction(routeArgs(formRequest(path, { text: "Spam" }, reporter.cookie))));
    expect(missing).toMatchObject({ status: 400, data: { message: REPORT_MESSAGES.reason, errors: { reason: REPORT_MESSAGES.reason } } });
    expect(await reportAction(routeArgs(formRequest(path, { reason: "spam", text: "Spam" }, reporter.cookie)))).toEqual({ sent: true });
    // Visitors sign in first; one's own comment and a forged id are not there to report.
    expectRedirect(await settle(() => reportLoader(routeArgs(getRequest(path)))), /Login/);
    const own = await settle(() => reportLoader(routeArgs(getRequest(path, c.commenter.cookie))));
    expect((own as Response).status).toBe(404);
  });
});

describe("the moderation queue", () => {
  it("is the admins': groups open reports by target with counts and reasons, newest first", async () => {
    const c = await content();
    const [one, two] = [await person(), await person()];
    const admin = await person("ADMIN");
    ok(await fileReport({ actor: one, kind: "comment", targetId: c.commentId, reason: "spam", text: "Ads" }));
    ok(await fileReport({ actor: two, kind: "comment", targetId: c.commentId, reason: "spam", text: "" }));
    ok(await fileReport({ actor: two, kind: "post", targetId: c.postId, reason: "inappropriate", text: "" }));
    const queue = ok(await getModerationQueue({ actor: admin }));
    const mine = queue.groups.filter((g) => [c.commentId, c.postId].includes(g.targetId));
    expect(mine.map((g) => [g.kind, g.count, g.reasons])).toEqual([
      ["post", 1, { inappropriate: 1 }],
      ["comment", 2, { spam: 2 }],
    ]);
    expect(mine[1]!.reports.map((r) => r.reporter)).toEqual([two.username, one.username]);
    expect(await getModerationQueue({ actor: one })).toMatchObject({ ok: false, status: 403 });
    const page = await settle(() => adminReportsLoader(routeArgs(getRequest("/ReciPals/Account/Admin/Reports", one.cookie))));
    expect((page as Response).status).toBe(302);
  });

  it("Dismiss closes the group's reports, tells each reporter (no details) and writes the log; a second try says it was handled", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    ok(await fileReport({ actor: reporter, kind: "post", targetId: c.postId, reason: "spam", text: "" }));
    const request = (why: string) => adminReportsAction(routeArgs(formRequest("/x", { intent: "dismiss", kind: "post", targetId: c.postId, why }, admin.cookie)));
    expectRedirect(await request("Looks fine"), "/ReciPals/Account/Admin/Reports");
    expect(await openReports("post", c.postId)).toEqual([]);
    const told = await db.selectFrom("notifications").select(["kind", "actor_id", "post_id"]).where("user_id", "=", reporter.id).execute();
    expect(told).toEqual([{ kind: "report", actor_id: null, post_id: null }]);
    const log = await db.selectFrom("moderation_log").select(["moderator_id", "action", "target_id", "why"]).where("target_id", "=", c.postId).execute();
    expect(log).toEqual([{ moderator_id: admin.id, action: "dismiss", target_id: c.postId, why: "Looks fine" }]);
    expect(dataOf(await request("Again"))).toMatchObject({ status: 409, data: { error: REPORT_MESSAGES.handled } });
    // The recipe is still there.
    expect(await db.selectFrom("recipes").select("id").where("id", "=", c.recipeId).execute()).toHaveLength(1);
  });

  it("Suspend user from a group another admin has just dismissed: 409, nobody suspended", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    ok(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "spam", text: "" }));
    ok(await moderate({ actor: admin, kind: "comment", targetId: c.commentId, action: "dismiss", why: "" }));
    expect(await moderate({ actor: admin, kind: "comment", targetId: c.commentId, action: "suspend", why: "" })).toMatchObject({ ok: false, status: 409, message: REPORT_MESSAGES.handled });
    expect(await db.selectFrom("users").select("suspended_at").where("id", "=", c.commenter.id).executeTakeFirstOrThrow()).toEqual({ suspended_at: null });
  });

  it("two admins acting on the same reports at once: one acts, the other is told, the log has one entry", async () => {
    const c = await content();
    const reporter = await person();
    const [first, second] = [await person("ADMIN"), await person("ADMIN")];
    ok(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "spam", text: "" }));
    const outcomes = await Promise.all([
      moderate({ actor: first, kind: "comment", targetId: c.commentId, action: "dismiss", why: "" }),
      moderate({ actor: second, kind: "comment", targetId: c.commentId, action: "remove", why: "" }),
    ]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.find((o) => !o.ok)).toMatchObject({ status: 409, message: REPORT_MESSAGES.handled });
    expect(await db.selectFrom("moderation_log").select("id").where("target_id", "=", c.commentId).execute()).toHaveLength(1);
  });

  it("Remove content deletes the comment (its notification withdrawn) or the recipe with its post", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    ok(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "spam", text: "" }));
    ok(await fileReport({ actor: reporter, kind: "post", targetId: c.postId, reason: "spam", text: "" }));
    ok(await moderate({ actor: admin, kind: "comment", targetId: c.commentId, action: "remove", why: "Spam link" }));
    expect(await db.selectFrom("comments").select("id").where("id", "=", c.commentId).execute()).toEqual([]);
    expect(await db.selectFrom("notifications").select("id").where("comment_id", "=", c.commentId).execute()).toEqual([]);
    ok(await moderate({ actor: admin, kind: "post", targetId: c.postId, action: "remove", why: "" }));
    expect(await db.selectFrom("recipes").select("id").where("id", "=", c.recipeId).execute()).toEqual([]);
    expect(await db.selectFrom("posts").select("id").where("id", "=", c.postId).execute()).toEqual([]);
    expect(await moderate({ actor: admin, kind: "user", targetId: c.author.id, action: "remove", why: "" })).toMatchObject({ ok: false, status: 400, message: MODERATION_MESSAGES.notRemovable });
    expect(await moderate({ actor: admin, kind: "comment", targetId: c.commentId, action: "remove", why: "x".repeat(501) })).toMatchObject({ ok: false, status: 400 });
    expect(await moderate({ actor: reporter, kind: "comment", targetId: c.commentId, action: "dismiss", why: "" })).toMatchObject({ ok: false, status: 403 });
  });
});

describe("suspension", () => {
  it("ends every session, refuses sign-in with a clear message, and hides what they made from all but admins until lifted", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    ok(await fileReport({ actor: reporter, kind: "comment", targetId: c.commentId, reason: "harassment", text: "" }));
    ok(await fileReport({ actor: reporter, kind: "user", targetId: c.commenter.id, reason: "spam", text: "" }));
    ok(await moderate({ actor: admin, kind: "comment", targetId: c.commentId, action: "suspend", why: "Repeated spam" }));
    // Both reports about them are closed; their session is gone; sign-in says why.
    expect(await db.selectFrom("reports").select("id").where("target_user_id", "=", c.commenter.id).where("resolved_at", "is", null).execute()).toEqual([]);
    expect(await getUser(getRequest("/ReciPals/Home", c.commenter.cookie))).toBeNull();
    expect(await db.selectFrom("sessions").select("id").where("user_id", "=", c.commenter.id).execute()).toEqual([]);
    // Through the API too: 403 with the same words.
    const api = await call(signinRoute, "POST", "/api/users/signin", { body: { username: c.commenter.username, password: c.commenter.password } });
    expect(api).toMatchObject({ status: 403, body: { message: SUSPENDED_MESSAGE } });
    const refused = await checkCredentials({ username: c.commenter.username, password: c.commenter.password }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LoginError);
    expect(refused).toMatchObject({ status: 403, message: SUSPENDED_MESSAGE });
    // A wrong password still says only that.
    await expect(checkCredentials({ username: c.commenter.username, password: "wrong password" })).rejects.toMatchObject({ status: 401 });
    // Their comment is gone for visitors and other people, not for admins; their profile and API entity too.
    const commentsSeenBy = async (cookie?: string) =>
      ((await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${c.recipeId}`, cookie), { rid: c.recipeId }))) as { comments: { comment_id: string }[] }).comments.map((x) => x.comment_id);
    expect(await commentsSeenBy()).not.toContain(c.commentId);
    expect(await commentsSeenBy(c.author.cookie)).not.toContain(c.commentId);
    expect(await commentsSeenBy(admin.cookie)).toContain(c.commentId);
    expect(dataOf(await profileLoader(routeArgs(getRequest("/x", c.author.cookie), { uid: c.commenter.id })))).toMatchObject({ status: 404, data: { unavailable: true, canUnblock: false } });
    expect((await call(userRoute, "GET", `/api/users/${c.commenter.id}`, { params: { id: c.commenter.id } })).status).toBe(404);
    expect((await call(userRoute, "GET", `/api/users/${c.commenter.id}`, { cookie: admin.cookie, params: { id: c.commenter.id } })).status).toBe(200);
    // The log says who, what and why; Unsuspend (admin user panel) brings it all back.
    expect(await db.selectFrom("moderation_log").select(["action", "why"]).where("target_id", "=", c.commenter.id).execute()).toEqual([{ action: "suspend", why: "Repeated spam" }]);
    expectRedirect(await adminUserAction(routeArgs(formRequest("/x", { intent: "unsuspend" }, admin.cookie), { uid: c.commenter.id })), `/ReciPals/Account/Admin/Users/${c.commenter.id}`);
    expect(await commentsSeenBy()).toContain(c.commentId);
    await expect(checkCredentials({ username: c.commenter.username, password: c.commenter.password })).resolves.toMatchObject({ id: c.commenter.id });
    expect(await unsuspend({ actor: admin, userId: c.commenter.id })).toMatchObject({ ok: false, status: 409 });
  });

  it("nobody can follow, like, comment on, save or list what a suspended person made", async () => {
    const c = await content();
    const admin = await person("ADMIN");
    const fan = await person();
    ok(await suspend({ actor: admin, userId: c.author.id, why: "" }));
    for (const outcome of [
      await setFollowing({ actor: fan, targetId: c.author.id, following: true }),
      await setLike({ actor: fan, postId: c.postId, liked: true }),
      await addComment({ actor: fan, postId: c.postId, text: "Hello?" }),
      await setSaved({ actor: fan, recipeId: c.recipeId, saved: true }),
    ]) {
      expect(outcome).toMatchObject({ ok: false, status: 403 });
    }
    expect(await addRecipeToList({ actor: fan, recipeId: c.recipeId })).toMatchObject({ ok: false, status: 404 });
    for (const table of ["follows", "likes", "comments", "saved_recipes", "shopping_items"] as const) {
      const column = table === "follows" ? "follower_id" : "user_id";
      expect(await db.selectFrom(table).select(column as never).where(column as never, "=", fan.id as never).execute(), table).toEqual([]);
    }
  });

  it("refuses oneself, administrators and non-admins", async () => {
    const admin = await person("ADMIN");
    const other = await person("ADMIN");
    const user = await person();
    expect(await suspend({ actor: admin, userId: admin.id, why: "" })).toMatchObject({ ok: false, status: 400, message: MODERATION_MESSAGES.selfSuspend });
    expect(await suspend({ actor: admin, userId: other.id, why: "" })).toMatchObject({ ok: false, status: 400, message: MODERATION_MESSAGES.adminSuspend });
    expect(await suspend({ actor: user, userId: other.id, why: "" })).toMatchObject({ ok: false, status: 403 });
    expect(await db.selectFrom("users").select("id").where("suspended_at", "is not", null).where("id", "in", [admin.id, other.id]).execute()).toEqual([]);
  });
});

describe("/api/reports", () => {
  it("files a report (201), lists the queue for admins only, and resolves", async () => {
    const c = await content();
    const reporter = await person();
    const admin = await person("ADMIN");
    const filed = await call(reportsRoute, "POST", "/api/reports", { cookie: reporter.cookie, body: { kind: "post", target_id: c.postId, reason: "spam" } });
    expect(filed.status).toBe(201);
    expect(filed.body.message).toBe(REPORT_MESSAGES.thanks);
    expect((await call(reportsRoute, "POST", "/api/reports", { cookie: reporter.cookie, body: { kind: "post", target_id: c.postId, reason: "nope" } })).body).toMatchObject({ message: REPORT_MESSAGES.reason, errors: { reason: REPORT_MESSAGES.reason } });
    expect((await call(reportsRoute, "POST", "/api/reports", { body: { kind: "post", target_id: c.postId, reason: "spam" } })).status).toBe(401);
    expect((await call(reportsRoute, "GET", "/api/reports", { cookie: reporter.cookie })).status).toBe(403);
    const queue = await call<{ groups: { targetId: string }[] }>(reportsRoute, "GET", "/api/reports", { cookie: admin.cookie });
    expect(queue.body.groups.map((g) => g.targetId)).toContain(c.postId);
    const resolved = await call(resolveRoute, "POST", "/api/reports/resolve", { cookie: admin.cookie, body: { kind: "post", target_id: c.postId, action: "dismiss" } });
    expect(resolved.body).toEqual({ action: "dismiss" });
    expect((await call(resolveRoute, "POST", "/api/reports/resolve", { cookie: admin.cookie, body: { kind: "post", target_id: c.postId, action: "dismiss" } })).status).toBe(409);
  });
});
