import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";

import { CompiledQuery } from "kysely";

import { action as followAction } from "~/routes/ReciPals.Account.Follow.$uid";
import { action as likeAction } from "~/routes/ReciPals.Posts.$pid.Like";
import { action as recipeAction } from "~/routes/ReciPals.Recipes.$rid";
import { db } from "~/server/db/connection.server";
import { withLiterals } from "~/server/db/engines/postgres.server";
import { countUnread } from "~/server/queries/notifications.server";

import { dataOf, formRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";
import { makeRecipeWithPost } from "../support/factories";
import { TEST_POSTGRES } from "../support/postgres";

// The most frequent writes — a like, a comment, a follow — go to the database at most four times
// from the request's arrival to its answer (docs/scaling.md, "Round trips"): between app
// servers and PostgreSQL on other machines each round trip costs its network time. The session
// and the post are read side by side, `begin` goes with the insert that carries the block's
// condition, and the notification with the commit. Counted at the driver: each call of node-postgres's `query` is one
// round trip (a statement with parameters, or several plain statements sent together).

const MOST = 4;
const sent: string[] = [];
/** When each call went out and when its answer came (performance.now()). */
const spans: { start: number; end: number }[] = [];
const realQuery = pg.Client.prototype.query;

/** Runs `work`, keeping the text of every call the driver sends meanwhile, and when each was in flight. */
async function counting<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[]; spans: { start: number; end: number }[] }> {
  sent.length = 0;
  spans.length = 0;
  const record = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    sent.push(typeof first === "string" ? first : String(first?.text));
    const span = { start: performance.now(), end: Number.POSITIVE_INFINITY };
    spans.push(span);
    const answer = (realQuery as (...a: unknown[]) => unknown).apply(this, args);
    if (answer instanceof Promise) void answer.finally(() => (span.end = performance.now())).catch(() => undefined);
    return answer;
  };
  (pg.Client.prototype as { query: unknown }).query = record;
  try {
    const result = await work();
    return { result, statements: [...sent], spans: [...spans] };
  } finally {
    pg.Client.prototype.query = realQuery;
  }
}

/** Whether the first two calls (the session and the post) were in flight at the same time. */
const sideBySide = (measured: { statements: string[]; spans: { start: number; end: number }[] }) => {
  const [one, two] = measured.spans;
  return one !== undefined && two !== undefined && two.start < one.end && /"sessions"/.test(measured.statements.slice(0, 2).join("\n")) && /"posts"/.test(measured.statements.slice(0, 2).join("\n"));
};
afterEach(() => {
  pg.Client.prototype.query = realQuery;
});

async function scene() {
  const owner = await makeUser();
  const fan = await makeUser();
  const { postId, recipeId } = await makeRecipeWithPost({ userId: owner.id });
  return { owner, fan, postId: postId!, recipeId, cookie: await signedInCookie(fan.id) };
}

const like = (postId: string, intent: string, cookie: string) =>
  settle(() => likeAction(routeArgs(formRequest(`/ReciPals/Posts/${postId}/Like`, { intent, _fetcher: "1" }, cookie), { pid: postId })));
const follow = (uid: string, intent: string, cookie: string) =>
  settle(() => followAction(routeArgs(formRequest(`/ReciPals/Account/Follow/${uid}`, { intent, _fetcher: "1" }, cookie), { uid })));
const comment = (recipeId: string, text: string, cookie: string) =>
  settle(() => recipeAction(routeArgs(formRequest(`/ReciPals/Recipes/${recipeId}`, { intent: "comment", text, _fetcher: "1" }, cookie), { rid: recipeId })));

describe.skipIf(!TEST_POSTGRES)("round trips per write on PostgreSQL", () => {
  it(`a like and an unlike (with JavaScript) take at most ${MOST}, and answer the right count`, async () => {
    const { owner, fan, postId, cookie } = await scene();
    const other = await makeUser();
    await like(postId, "like", await signedInCookie(other.id));

    const liked = await counting(() => like(postId, "like", cookie));
    expect(liked.result).toEqual({ liked: true, likes: 2 });
    expect(liked.statements.length, liked.statements.join("\n")).toBeLessThanOrEqual(MOST);
    // The notification is written in the same round trip as the commit, so it lands with the like or not at all.
    expect(liked.statements.at(-1)).toMatch(/^insert into "notifications" .*; commit$/s);
    // The session and the post are read side by side: the wait is three round trips long.
    expect(sideBySide(liked), liked.statements.slice(0, 2).join("\n")).toBe(true);
    expect(await countUnread(owner.id)).toBe(2);

    const again = await counting(() => like(postId, "like", cookie));
    expect(again.result).toEqual({ liked: true, likes: 2 });

    const unliked = await counting(() => like(postId, "unlike", cookie));
    expect(unliked.result).toEqual({ liked: false, likes: 1 });
    expect(unliked.statements.length, unliked.statements.join("\n")).toBeLessThanOrEqual(MOST);
    expect(await countUnread(owner.id)).toBe(1);
    const rows = await db.selectFrom("likes").select("user_id").where("post_id", "=", postId).execute();
    expect(rows.map((r) => r.user_id)).toEqual([other.id]);
    void fan;
  });

  it(`a comment takes at most ${MOST}, and answers the comment with its author`, async () => {
    const { owner, fan, recipeId, cookie } = await scene();
    const counted = await counting(() => comment(recipeId, "Lovely", cookie));
    const { result, statements } = counted;
    expect(sideBySide(counted), statements.slice(0, 2).join("\n")).toBe(true);
    const answer = (result as { comment: { text: string; author: { id: string; username: string } } }).comment;
    expect(answer.text).toBe("Lovely");
    expect(answer.author).toMatchObject({ id: fan.id, username: fan.username });
    expect(statements.length, statements.join("\n")).toBeLessThanOrEqual(MOST);
    expect(await countUnread(owner.id)).toBe(1);
  });

  it(`a follow and an unfollow take at most ${MOST}, and answer whether one follows now`, async () => {
    const { owner, fan, cookie } = await scene();
    const followed = await counting(() => follow(owner.id, "follow", cookie));
    expect(dataOf(followed.result).data).toMatchObject({ ok: true, following: true });
    expect(followed.statements.length, followed.statements.join("\n")).toBeLessThanOrEqual(MOST);
    expect(await countUnread(owner.id)).toBe(1);

    const unfollowed = await counting(() => follow(owner.id, "unfollow", cookie));
    expect(dataOf(unfollowed.result).data).toMatchObject({ ok: true, following: false });
    expect(unfollowed.statements.length, unfollowed.statements.join("\n")).toBeLessThanOrEqual(MOST);
    const rows = await db.selectFrom("follows").select("followee_id").where("follower_id", "=", fan.id).execute();
    expect(rows).toEqual([]);
  });
});

describe("what may go with begin: a statement with its values written in", () => {
  const write = (sql: string, parameters: unknown[]) => withLiterals(CompiledQuery.raw(sql, parameters));
  it("writes each value as a quoted literal, and goes separately whenever it could be misread", () => {
    // pg's own escaping: quotes doubled, a backslash in an E'' string (with the space it puts before it).
    expect(write('select "a" from "t" where "b" = $1 and "c" = $2 limit $3', ["x'y\\z", true, 5])).toBe(`select "a" from "t" where "b" =  E'x''y\\\\z' and "c" = 'true' limit '5'`);
    expect(write("select $1, $10", Array.from({ length: 10 }, (_, i) => `v${i + 1}`))).toBe("select 'v1', 'v10'");
    expect(write("select $1", ["$2 and $$"])).toBe("select '$2 and $$'");
    for (const [sql, values] of [
      ["select 'a' || $1", ["b"]], // a literal of its own
      ["select $1 -- note", ["b"]], // a comment
      ["select $1 /* note */", ["b"]],
      ['select "odd$1name" from t where x = $1', ["b"]], // a placeholder inside a quoted name
      ["select $1, $2", ["only one"]], // a placeholder without a value
      ["select $1", ["nul\0byte"]], // NUL cannot go in a simple query
      ["select $1", [new Date(0)]],
      ["select $1", [[1, 2]]],
      ["select $1", [Number.NaN]],
      ["select $1", [10n]],
    ] as const) {
      expect(write(sql, [...values]), sql).toBeNull();
    }
  });
});
