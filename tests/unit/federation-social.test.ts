import crypto from "node:crypto";

import {
  Accept,
  Create,
  createFederation,
  Delete,
  Document,
  Follow,
  generateCryptoKeyPair,
  Like,
  MemoryKvStore,
  Note,
  Person,
  PUBLIC_COLLECTION,
  signRequest,
  Undo,
  type Activity,
  type Federation,
} from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { db } from "~/server/db/connection.server";
import { answerFederation } from "~/server/api/federation-api.server";
import { startFederationQueue } from "~/server/federation/federation.server";
import { remoteHtmlToText } from "~/server/federation/remote-text.server";
import { replyToRemotePost, setRemoteFollowing, setRemotePostLiked } from "~/server/federation/remote-actions.server";
import { blockDomain, FEDERATION_MESSAGES, unblockDomain } from "~/server/services/federation-service.server";
import { fileReport, getModerationQueue, moderate } from "~/server/services/moderation-service.server";
import { createRecipe } from "~/server/services/recipes-service.server";
import { deleteUser } from "~/server/services/users-service.server";
import { loader as searchLoader } from "~/routes/ReciPals.Search";
import { action as remotePeopleAction } from "~/routes/ReciPals.Account.RemotePeople";
import { action as remotePostsAction } from "~/routes/ReciPals.Account.RemotePosts";
import { loader as homeLoader } from "~/routes/ReciPals.Home";
import { loader as homeLikesLoader } from "~/routes/ReciPals.Home.Likes.$pid";
import { loader as recipeLoader } from "~/routes/ReciPals.Recipes.$rid";
import { action as reportAction, loader as reportLoader } from "~/routes/ReciPals.Report";

import { dataOf, expectRedirect, formRequest, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";
import { serve, until } from "../support/federation";
import { useSetting } from "../support/settings";

// Federation, the social half (docs/federation.md): someone here finds a person on another server
// by @name@host, follows them (Follow, completed by their Accept), sees their posts on Home; people
// there like and answer a recipe here, and take it back; an unfollow sends Undo, a deleted account
// Delete of its actor. The other server is a real one on this machine made with the same library
// (not a mock): it serves WebFinger, its actors and keys, signs what it sends and checks what it gets.

let here: { origin: string; close: () => void };
let there: { origin: string; close: () => void };
let remote: Federation<void>;
let farKeys: CryptoKeyPair;
/** What the other server's inboxes received (Follow, Undo, Delete, …). */
const received: Activity[] = [];
const work = new AbortController();
/** Deliveries that reached gone-cook's inbox (which answers 410 Gone). */
let goneHits = 0;
/** Whether the other server answers a Follow with an Accept. */
let accepting = true;

beforeAll(async () => {
  here = await serve((request) => answerFederation(request));
  useSetting("PUBLIC_URL", here.origin);
  useSetting("FEDERATION_ALLOW_PRIVATE", "1");
  startFederationQueue(work.signal);

  // The other server: "far-cook" (who accepts follows) and "stranger" (whom nobody here follows).
  const keys = (farKeys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5"));
  remote = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  remote
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) =>
      identifier === "far-cook" || identifier === "stranger" || identifier === "gone-cook"
        ? new Person({
            id: ctx.getActorUri(identifier),
            preferredUsername: identifier,
            name: identifier === "far-cook" ? "Far Cook" : "A Stranger",
            summary: "<p>Cooks <b>far</b> away</p>",
            url: new URL(`/@${identifier}`, ctx.origin),
            inbox: ctx.getInboxUri(identifier),
            publicKey: (await ctx.getActorKeyPairs(identifier))[0]?.cryptographicKey,
          })
        : null,
    )
    .setKeyPairsDispatcher(() => [keys]);
  remote
    .setInboxListeners("/users/{identifier}/inbox")
    .on(Follow, async (ctx, follow) => {
      received.push(follow);
      if (!accepting) return;
      const follower = await follow.getActor(ctx);
      if (!follower) return;
      await ctx.sendActivity({ identifier: "far-cook" }, follower, new Accept({ id: new URL(`${there.origin}/accepts/${crypto.randomUUID()}`), actor: ctx.getActorUri("far-cook"), object: follow }));
    })
    .on(Undo, (_ctx, activity) => void received.push(activity))
    .on(Like, (_ctx, activity) => void received.push(activity))
    .on(Create, (_ctx, activity) => void received.push(activity))
    .on(Delete, (_ctx, activity) => void received.push(activity));
  there = await serve(async (request) => {
    // gone-cook's account was deleted there: their inbox answers 410 Gone.
    if (new URL(request.url).pathname === "/users/gone-cook/inbox") {
      goneHits += 1;
      return new Response("Gone", { status: 410 });
    }
    return remote.fetch(request, { contextData: undefined });
  });
}, 60_000);
afterAll(() => {
  work.abort();
  here?.close();
  there?.close();
});

const thereHost = () => new URL(there.origin).host;
const farCookId = () => `${there.origin}/users/far-cook`;

/** The other server sends `activity` as `who` to the inbox of `recipientId` here. */
/** `userId` (signed in with `cookie`) finds far-cook by handle and follows them; resolves once their server accepted. */
async function followFarCook(userId: string, cookie: string): Promise<void> {
  await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@far-cook@${thereHost()}`)}`, cookie)));
  await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie)));
  await until(() => db.selectFrom("remote_follows").select("accepted_at").where("user_id", "=", userId).where("accepted_at", "is not", null).executeTakeFirst(), "the follow");
}

async function sendFromThere(who: "far-cook" | "stranger" | "gone-cook", recipientId: string, activity: Activity): Promise<void> {
  const ctx = remote.createContext(new URL(there.origin), undefined);
  const recipient = await ctx.lookupObject(`${here.origin}/ap/users/${encodeURIComponent(recipientId)}`);
  await ctx.sendActivity({ identifier: who }, recipient as Person, activity);
}

/**
 * Posts `activity` (JSON as another server's software writes it) to the inbox of `recipientId`
 * here, signed with far-cook's key (draft-cavage HTTP Signature with Digest, as Mastodon signs).
 */
async function postAsJson(recipientId: string, activity: Record<string, unknown>): Promise<number> {
  const request = new Request(`${here.origin}/ap/users/${encodeURIComponent(recipientId)}/inbox`, {
    method: "POST",
    headers: { "Content-Type": "application/activity+json" },
    body: JSON.stringify(activity),
  });
  const response = await fetch(await signRequest(request, farKeys.privateKey, new URL(`${farCookId()}#main-key`)));
  return response.status;
}

/** A recipe with its post, by `author`. */
async function postRecipe(authorId: string, name: string) {
  const created = await createRecipe({
    actor: { id: authorId, role: "USER" },
    recipeId: crypto.randomUUID(),
    input: { name, description: "", totalTime: "1h", serves: 2, tags: [], sections: [{ id: "", title: "", ingredients: ["Flour"] }], steps: ["Bake."] },
    photo: { kind: "keep" },
    fallbackPhoto: "/images/recipe-placeholder.png",
  });
  if (!created.ok) throw new Error(created.message);
  return { ...created.value, noteId: new URL(`${here.origin}/ap/posts/${encodeURIComponent(created.value.postId)}`) };
}

describe("federation: following people on other servers", () => {
  it("search finds @name@host on their server; Follow sends a Follow that their Accept completes; their posts show on Home as text; Unfollow sends Undo", async () => {
    const cook = await makeUser({ name: "Home Cook" });
    const cookie = await signedInCookie(cook.id);
    const handle = `@far-cook@${thereHost()}`;

    // A visitor is not shown people elsewhere (the search asks their server only for someone signed in).
    const visitor = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(handle)}`)))) as { remote: unknown };
    expect(visitor.remote).toBeNull();
    const found = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(handle)}`, cookie)))) as { remote: { id: string; handle: string; name: string; follow: string } | null };
    expect(found.remote).toMatchObject({ id: farCookId(), handle: `far-cook@${thereHost()}`, name: "Far Cook", follow: "none" });
    const nobody = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@nobody@${thereHost()}`)}`, cookie)))) as { remote: unknown };
    expect(nobody.remote).toBeNull();

    // Follow, as a plain form post (back to the search) and, for Unfollow later, through a fetcher.
    const posted = await settle(() => remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", redirectTo: `/ReciPals/Search?q=${encodeURIComponent(handle)}` }, cookie))));
    expectRedirect(posted, `/ReciPals/Search?q=${encodeURIComponent(handle)}`);
    const follow = (await until(async () => received.find((activity) => activity instanceof Follow && activity.actorId?.href.endsWith(`/ap/users/${encodeURIComponent(cook.id)}`)), "the Follow arriving")) as Follow;
    expect(follow.objectId?.href).toBe(farCookId());
    await until(() => db.selectFrom("remote_follows").select("accepted_at").where("user_id", "=", cook.id).where("accepted_at", "is not", null).executeTakeFirst(), "their Accept completing the follow");
    const again = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(handle)}`, cookie)))) as { remote: { follow: string } };
    expect(again.remote.follow).toBe("following");

    // A post of theirs arrives (HTML with a script and markup) and is on Home as plain text with a link.
    const noteId = new URL(`${there.origin}/notes/1`);
    const note = new Note({
      id: noteId,
      attribution: new URL(farCookId()),
      to: PUBLIC_COLLECTION,
      url: new URL(`${there.origin}/@far-cook/1`),
      content: '<p>Tonight: <b>miso</b> soup &amp; rice</p><script>alert("x")</script><p>Try it<br>soon</p>',
      published: Temporal.Now.instant(),
      attachments: [new Document({ mediaType: "image/jpeg", url: new URL(`${there.origin}/media/soup.jpg`) })],
    });
    await sendFromThere("far-cook", cook.id, new Create({ id: new URL(`${there.origin}/notes/1/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: note }));
    await until(() => db.selectFrom("remote_posts").select("id").where("id", "=", noteId.href).executeTakeFirst(), "their post being kept");
    const home = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { id: string; text: string; handle: string; url: string; image_url: string | null }[] };
    expect(home.remote).toEqual([
      expect.objectContaining({ id: noteId.href, handle: `far-cook@${thereHost()}`, text: "Tonight: miso soup & rice\nTry it\nsoon", url: `${there.origin}/@far-cook/1`, image_url: `${there.origin}/media/soup.jpg` }),
    ]);
    // Someone who does not follow them sees nothing of it.
    const other = await makeUser();
    const otherHome = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", await signedInCookie(other.id))))) as { remote: unknown[] };
    expect(otherHome.remote).toEqual([]);

    // Liking it here sends them a Like of it; unliking, an Undo of that Like.
    const liked = dataOf<{ ok: boolean; liked: boolean }>(await remotePostsAction(routeArgs(formRequest("/ReciPals/Account/RemotePosts", { post: noteId.href, intent: "like", _fetcher: "1" }, cookie))));
    expect(liked.data).toMatchObject({ ok: true, liked: true });
    const like = (await until(async () => received.find((activity) => activity instanceof Like && activity.objectId?.href === noteId.href), "the Like arriving")) as Like;
    expect(like.actorId?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
    const likedHome = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { liked: boolean }[] };
    expect(likedHome.remote[0]?.liked).toBe(true);
    const unliked = await settle(() => remotePostsAction(routeArgs(formRequest("/ReciPals/Account/RemotePosts", { post: noteId.href, intent: "unlike", redirectTo: "/ReciPals/Home#remote-post-0" }, cookie))));
    expectRedirect(unliked, "/ReciPals/Home#remote-post-0");
    const undoLike = (await until(async () => received.find((activity) => activity instanceof Undo && activity.actorId?.href === like.actorId?.href && activity.objectId?.href === like.id?.href), "the Undo of the Like arriving")) as Undo;
    expect(undoLike).toBeInstanceOf(Undo);
    const missing = dataOf<{ ok: boolean }>(await remotePostsAction(routeArgs(formRequest("/ReciPals/Account/RemotePosts", { post: `${there.origin}/notes/never`, intent: "like", _fetcher: "1" }, cookie))));
    expect(missing.status).toBe(404);

    // A reply from here goes to them as a Note answering theirs, and shows under it on Home.
    const replied = dataOf<{ ok: boolean; replyId: string }>(await remotePostsAction(routeArgs(formRequest("/ReciPals/Account/RemotePosts", { post: noteId.href, intent: "reply", text: "Making it <tonight> & soon", _fetcher: "1" }, cookie))));
    expect(replied.data.ok).toBe(true);
    const replyCreate = (await until(async () => received.find((activity) => activity instanceof Create && activity.objectId?.href === replied.data.replyId), "the reply arriving")) as Create;
    const replyNote = (await replyCreate.getObject()) as Note;
    expect(replyNote.replyTargetId?.href).toBe(noteId.href);
    expect(replyNote.attributionId?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
    expect(String(replyNote.content)).toBe("<p>Making it &#60;tonight&#62; &#38; soon</p>");
    const fetchedReply = (await (await fetch(replied.data.replyId, { headers: { Accept: "application/activity+json" } })).json()) as { type: string; inReplyTo: string };
    expect(fetchedReply).toMatchObject({ type: "Note", inReplyTo: noteId.href });
    const withReply = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { replies: { text: string }[] }[] };
    expect(withReply.remote[0]?.replies).toEqual([expect.objectContaining({ text: "Making it <tonight> & soon" })]);
    const empty = dataOf<{ ok: boolean; message: string; text: string }>(await remotePostsAction(routeArgs(formRequest("/ReciPals/Account/RemotePosts", { post: noteId.href, intent: "reply", text: "   ", _fetcher: "1" }, cookie))));
    expect(empty).toMatchObject({ status: 400, data: { ok: false, message: "Please write a comment before posting.", text: "   " } });

    // Their Delete of the post takes it off Home.
    await sendFromThere("far-cook", cook.id, new Delete({ id: new URL(`${there.origin}/notes/1/delete`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: noteId }));
    await until(async () => !(await db.selectFrom("remote_posts").select("id").where("id", "=", noteId.href).executeTakeFirst()), "the Delete removing it");

    // Unfollow through a fetcher: data back, an Undo of the same Follow goes out.
    const undone = dataOf<{ ok: boolean; follow: string }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "unfollow", _fetcher: "1" }, cookie))));
    expect(undone.data).toMatchObject({ ok: true, follow: "none" });
    const undo = (await until(async () => received.find((activity) => activity instanceof Undo && activity.objectId?.href === follow.id?.href), "the Undo of the Follow arriving")) as Undo;
    expect(undo.actorId?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
  });

  it("keeps nothing from someone nobody here follows, nor a post claiming another author", async () => {
    const cook = await makeUser();
    const stranger = `${there.origin}/users/stranger`;
    await sendFromThere(
      "stranger",
      cook.id,
      new Create({ id: new URL(`${there.origin}/notes/2/create`), actor: new URL(stranger), to: PUBLIC_COLLECTION, object: new Note({ id: new URL(`${there.origin}/notes/2`), attribution: new URL(stranger), content: "<p>Unasked</p>" }) }),
    );
    await sendFromThere(
      "stranger",
      cook.id,
      new Create({ id: new URL(`${there.origin}/notes/3/create`), actor: new URL(stranger), to: PUBLIC_COLLECTION, object: new Note({ id: new URL(`${there.origin}/notes/3`), attribution: new URL(farCookId()), content: "<p>Forged</p>" }) }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await db.selectFrom("remote_posts").select("id").where("id", "in", [`${there.origin}/notes/2`, `${there.origin}/notes/3`]).execute()).toEqual([]);
  });

  it("a follow their server does not accept stays Requested, and withdrawing it sends Undo", async () => {
    accepting = false;
    try {
      const cook = await makeUser();
      const cookie = await signedInCookie(cook.id);
      const followed = dataOf<{ ok: boolean; follow: string }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie))));
      expect(followed.data).toMatchObject({ ok: true, follow: "pending" });
      await until(async () => received.find((activity) => activity instanceof Follow && activity.actorId?.href.endsWith(`/ap/users/${encodeURIComponent(cook.id)}`)), "the Follow arriving");
      const row = await db.selectFrom("remote_follows").selectAll().where("user_id", "=", cook.id).executeTakeFirstOrThrow();
      expect(row.accepted_at).toBeNull();
      const shown = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@far-cook@${thereHost()}`)}`, cookie)))) as { remote: { follow: string } };
      expect(shown.remote.follow).toBe("pending");
      const withdrawn = dataOf<{ ok: boolean; follow: string }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "unfollow", _fetcher: "1" }, cookie))));
      expect(withdrawn.data).toMatchObject({ ok: true, follow: "none" });
      const undo = (await until(async () => received.find((activity) => activity instanceof Undo && activity.actorId?.href.endsWith(`/ap/users/${encodeURIComponent(cook.id)}`)), "the Undo arriving")) as Undo;
      expect(undo.objectId?.href).toBe(row.follow_id);
    } finally {
      accepting = true;
    }
  });

  it("refuses a follow of someone never looked up, a bad intent, and a visitor", async () => {
    const cook = await makeUser();
    const cookie = await signedInCookie(cook.id);
    const unknown = dataOf<{ ok: boolean }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: `${there.origin}/users/never-seen`, intent: "follow", _fetcher: "1" }, cookie))));
    expect(unknown.status).toBe(404);
    const bad = dataOf<{ ok: boolean }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "befriend", _fetcher: "1" }, cookie))));
    expect(bad.status).toBe(400);
    const visitor = await settle(() => remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow" }))));
    expectRedirect(visitor, /\/ReciPals\/Account\/Login/);
    expect(await db.selectFrom("remote_follows").select("user_id").where("user_id", "=", cook.id).execute()).toEqual([]);
  });
});

describe("federation: likes and replies from other servers", () => {
  it("a remote Like counts on the recipe and shows with its handle in Likes; Undo takes it back; a reply shows as a comment until its Delete", async () => {
    const author = await makeUser();
    const { recipeId, postId, noteId } = await postRecipe(author.id, "Barley Broth");
    const likeId = new URL(`${there.origin}/likes/1`);
    await sendFromThere("far-cook", author.id, new Like({ id: likeId, actor: new URL(farCookId()), object: noteId }));
    await until(() => db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).executeTakeFirst(), "the Like being kept");

    const page = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`), { rid: recipeId }))) as { social: { likes: number } };
    expect(page.social.likes).toBe(1);
    const likes = (await homeLikesLoader(routeArgs(getRequest(`/ReciPals/Home/Likes/${postId}`), { pid: postId }))) as { likers: unknown[]; remote: { handle: string }[] };
    expect(likes.likers).toEqual([]);
    expect(likes.remote).toEqual([expect.objectContaining({ handle: `far-cook@${thereHost()}` })]);

    await sendFromThere("far-cook", author.id, new Undo({ id: new URL(`${there.origin}/likes/1/undo`), actor: new URL(farCookId()), object: new Like({ id: likeId, actor: new URL(farCookId()), object: noteId }) }));
    await until(async () => !(await db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).executeTakeFirst()), "the Undo removing the like");
    const after = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`), { rid: recipeId }))) as { social: { likes: number } };
    expect(after.social.likes).toBe(0);

    // A reply: a Note answering ours.
    const replyId = new URL(`${there.origin}/notes/reply-1`);
    const reply = new Note({ id: replyId, attribution: new URL(farCookId()), to: PUBLIC_COLLECTION, replyTarget: noteId, url: new URL(`${there.origin}/@far-cook/reply-1`), content: '<p><a href="https://x.example">@author</a> Lovely <img src=x onerror=alert(1)>broth!</p>' });
    await sendFromThere("far-cook", author.id, new Create({ id: new URL(`${replyId.href}/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: reply }));
    await until(() => db.selectFrom("remote_comments").select("id").where("post_id", "=", postId).executeTakeFirst(), "the reply being kept");
    const withReply = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`), { rid: recipeId }))) as { comments: { text: string; author: unknown; remote?: { handle: string; url: string } }[]; deletable: string[] };
    expect(withReply.comments).toEqual([expect.objectContaining({ author: null, text: "@author Lovely broth!", remote: { handle: `far-cook@${thereHost()}`, url: `${there.origin}/@far-cook/reply-1` } })]);
    // Not the recipe owner's to delete here (it is theirs, there).
    expect(withReply.deletable).toEqual([]);

    await sendFromThere("far-cook", author.id, new Delete({ id: new URL(`${replyId.href}/delete`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: replyId }));
    await until(async () => !(await db.selectFrom("remote_comments").select("id").where("post_id", "=", postId).executeTakeFirst()), "the Delete removing the reply");
  });

  it("a Like of a post that is not here, or by someone else's name, is not kept", async () => {
    const author = await makeUser();
    const { postId } = await postRecipe(author.id, "Oat Cakes");
    await sendFromThere("far-cook", author.id, new Like({ id: new URL(`${there.origin}/likes/2`), actor: new URL(farCookId()), object: new URL(`${here.origin}/ap/posts/${crypto.randomUUID()}`) }));
    // Signed by far-cook, naming the stranger as the actor: the library refuses it (the key is not theirs).
    await expect(sendFromThere("far-cook", author.id, new Like({ id: new URL(`${there.origin}/likes/3`), actor: new URL(`${there.origin}/users/stranger`), object: new URL(`${here.origin}/ap/posts/${postId}`) }))).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).execute()).toEqual([]);
  });
});

describe("federation: safety across servers", () => {
  it("Mute keeps their posts off one's Home; Block ends follows both ways, takes their likes off one's posts and refuses the next ones", async () => {
    const cook = await makeUser();
    const cookie = await signedInCookie(cook.id);
    const searchFor = async () =>
      ((await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@far-cook@${thereHost()}`)}`, cookie)))) as { remote: { follow: string; blocked: boolean; muted: boolean } }).remote;
    await searchFor();
    await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie)));
    const follow = await until(() => db.selectFrom("remote_follows").select("follow_id").where("user_id", "=", cook.id).where("accepted_at", "is not", null).executeTakeFirst(), "the follow");
    const noteId = new URL(`${there.origin}/notes/mute-${cook.id}`);
    await sendFromThere("far-cook", cook.id, new Create({ id: new URL(`${noteId.href}/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: new Note({ id: noteId, attribution: new URL(farCookId()), content: "<p>Muted soon</p>" }) }));
    await until(() => db.selectFrom("remote_posts").select("id").where("id", "=", noteId.href).executeTakeFirst(), "their post");
    const homeIds = async () => ((await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { id: string }[] }).remote.map((post) => post.id);
    expect(await homeIds()).toEqual([noteId.href]);

    const muted = dataOf<{ muted: boolean }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "mute", _fetcher: "1" }, cookie))));
    expect(muted.data.muted).toBe(true);
    expect(await homeIds()).toEqual([]);
    expect(await searchFor()).toMatchObject({ follow: "following", muted: true, blocked: false });
    await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "unmute", _fetcher: "1" }, cookie)));
    expect(await homeIds()).toEqual([noteId.href]);

    // They follow the cook and like a recipe of theirs; then the cook blocks them.
    const { postId, noteId: recipeNote } = await postRecipe(cook.id, "Guarded Stew");
    await sendFromThere("far-cook", cook.id, new Follow({ id: new URL(`${there.origin}/follows/block-${cook.id}`), actor: new URL(farCookId()), object: new URL(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`) }));
    await until(() => db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).executeTakeFirst(), "their follow");
    await sendFromThere("far-cook", cook.id, new Like({ id: new URL(`${there.origin}/likes/guarded-1`), actor: new URL(farCookId()), object: recipeNote }));
    await until(() => db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).executeTakeFirst(), "their like");

    const blocked = dataOf<{ blocked: boolean; follow: string }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "block", _fetcher: "1" }, cookie))));
    expect(blocked.data).toMatchObject({ blocked: true, follow: "none" });
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).execute()).toEqual([]);
    expect(await db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).execute()).toEqual([]);
    expect(await homeIds()).toEqual([]);
    // Their server hears that our follow ended.
    await until(async () => received.find((activity) => activity instanceof Undo && activity.objectId?.href === follow.follow_id), "the Undo of our follow");
    // What they send next is not kept, and they cannot be followed until unblocked.
    await sendFromThere("far-cook", cook.id, new Like({ id: new URL(`${there.origin}/likes/guarded-2`), actor: new URL(farCookId()), object: recipeNote }));
    await sendFromThere("far-cook", cook.id, new Follow({ id: new URL(`${there.origin}/follows/block-again-${cook.id}`), actor: new URL(farCookId()), object: new URL(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`) }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).execute()).toEqual([]);
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).execute()).toEqual([]);
    const refused = dataOf<{ ok: boolean; message: string }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie))));
    expect(refused).toMatchObject({ status: 409, data: { ok: false, message: FEDERATION_MESSAGES.blockedPerson } });
    expect(await searchFor()).toMatchObject({ blocked: true, follow: "none" });
    await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "unblock", _fetcher: "1" }, cookie)));
    expect(await searchFor()).toMatchObject({ blocked: false });
  });

  it("blocking their domain ends follows both ways and removes their posts, likes and replies", async () => {
    const admin = { id: (await makeUser({ role: "ADMIN" })).id, role: "ADMIN" as const };
    const cook = await makeUser();
    const cookie = await signedInCookie(cook.id);
    await followFarCook(cook.id, cookie);
    const { postId, noteId } = await postRecipe(cook.id, "Blocked Bread");
    await sendFromThere("far-cook", cook.id, new Like({ id: new URL(`${there.origin}/likes/block`), actor: new URL(farCookId()), object: noteId }));
    await until(() => db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).executeTakeFirst(), "the like");

    expect(await blockDomain({ actor: admin, domain: "127.0.0.1" })).toMatchObject({ ok: true });
    try {
      expect(await db.selectFrom("remote_follows").select("user_id").where("user_id", "=", cook.id).execute()).toEqual([]);
      expect(await db.selectFrom("remote_likes").select("post_id").where("post_id", "=", postId).execute()).toEqual([]);
      // The search no longer asks a blocked server, and a follow of its people is refused.
      const found = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@far-cook@${thereHost()}`)}`, cookie)))) as { remote: unknown };
      expect(found.remote).toBeNull();
      const refused = dataOf<{ ok: boolean }>(await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie))));
      expect(refused.status).toBe(404);
    } finally {
      expect(await unblockDomain({ actor: admin, domain: "127.0.0.1" })).toMatchObject({ ok: true });
    }
  });

  it("people here report a person elsewhere, a post of theirs and their reply; an admin removes the reply, cannot remove or suspend the person, and blocks their domain from the queue", async () => {
    const admin = { id: (await makeUser({ role: "ADMIN" })).id, role: "ADMIN" as const };
    const reader = await makeUser();
    const readerActor = { id: reader.id, role: "USER" as const };
    const cookie = await signedInCookie(reader.id);
    const searched = (await searchLoader(routeArgs(getRequest(`/ReciPals/Search?q=${encodeURIComponent(`@far-cook@${thereHost()}`)}`, cookie)))) as { remote: { reportHref: string } };
    expect(searched.remote.reportHref).toBe(`/ReciPals/Report?kind=remote_user&id=${encodeURIComponent(farCookId())}`);
    await remotePeopleAction(routeArgs(formRequest("/ReciPals/Account/RemotePeople", { actor: farCookId(), intent: "follow", _fetcher: "1" }, cookie)));
    await until(() => db.selectFrom("remote_follows").select("accepted_at").where("user_id", "=", reader.id).where("accepted_at", "is not", null).executeTakeFirst(), "the follow");
    const postNote = new URL(`${there.origin}/notes/reported-${reader.id}`);
    await sendFromThere("far-cook", reader.id, new Create({ id: new URL(`${postNote.href}/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: new Note({ id: postNote, attribution: new URL(farCookId()), content: "<p>Buy cheap pans at spam.example</p>" }) }));
    await until(() => db.selectFrom("remote_posts").select("id").where("id", "=", postNote.href).executeTakeFirst(), "their post");
    const { recipeId, noteId } = await postRecipe(reader.id, "Reported Soup");
    const replyId = new URL(`${there.origin}/notes/reported-reply-${reader.id}`);
    await sendFromThere("far-cook", reader.id, new Create({ id: new URL(`${replyId.href}/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: new Note({ id: replyId, attribution: new URL(farCookId()), to: PUBLIC_COLLECTION, replyTarget: noteId, content: "<p>Rude words</p>" }) }));
    await until(() => db.selectFrom("remote_comments").select("id").where("id", "=", replyId.href).executeTakeFirst(), "their reply");

    // Each of the three has its Report link where it is shown, and the report page files it.
    const home = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { id: string; reportHref: string }[] };
    const postHref = home.remote.find((post) => post.id === postNote.href)!.reportHref;
    expect(postHref).toBe(`/ReciPals/Report?kind=remote_post&id=${encodeURIComponent(postNote.href)}`);
    const recipe = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`, cookie), { rid: recipeId }))) as { comments: { comment_id: string; reportHref?: string }[] };
    const replyHref = recipe.comments.find((comment) => comment.comment_id === replyId.href)!.reportHref!;
    expect(replyHref).toBe(`/ReciPals/Report?kind=remote_comment&id=${encodeURIComponent(replyId.href)}`);
    // A visitor sees no Report link on it.
    const visitorRecipe = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`), { rid: recipeId }))) as { comments: { reportHref?: string }[] };
    expect(visitorRecipe.comments.map((comment) => comment.reportHref)).toEqual([undefined]);
    for (const href of [searched.remote.reportHref, postHref, replyHref]) {
      const form = (await reportLoader(routeArgs(getRequest(href, cookie)))) as { owner: string; label: string };
      expect(form.owner).toBe(`@far-cook@${thereHost()}`);
      expect(await reportAction(routeArgs(formRequest(href, { reason: "spam", text: "Not food" }, cookie)))).toEqual({ sent: true });
    }
    expect(await fileReport({ actor: readerActor, kind: "remote_post", targetId: postNote.href, reason: "spam", text: "" })).toMatchObject({ ok: false, status: 409 });
    expect(await fileReport({ actor: readerActor, kind: "remote_post", targetId: `${there.origin}/notes/never-here`, reason: "spam", text: "" })).toMatchObject({ ok: false, status: 404 });

    const queue = await getModerationQueue({ actor: admin });
    if (!queue.ok) throw new Error(queue.message);
    const groupOf = (targetId: string) => queue.value.groups.find((group) => group.targetId === targetId)!;
    expect(groupOf(farCookId())).toMatchObject({ kind: "remote_user", count: 1, target: { label: `far-cook@${thereHost()}`, ownerId: null, remote: { host: thereHost() } } });
    expect(groupOf(postNote.href)).toMatchObject({ kind: "remote_post", target: { label: "Buy cheap pans at spam.example", ownerName: `@far-cook@${thereHost()}` } });
    expect(groupOf(replyId.href)).toMatchObject({ kind: "remote_comment", target: { label: "Rude words", recipeId } });

    // Removing the reply takes it off the recipe here; its reporter hears an admin looked.
    expect(await moderate({ actor: admin, kind: "remote_comment", targetId: replyId.href, action: "remove", why: "rude" })).toMatchObject({ ok: true });
    expect(await db.selectFrom("remote_comments").select("id").where("id", "=", replyId.href).executeTakeFirst()).toBeUndefined();
    const afterRemoval = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`, cookie), { rid: recipeId }))) as { comments: unknown[] };
    expect(afterRemoval.comments).toEqual([]);
    expect(await db.selectFrom("notifications").select("kind").where("user_id", "=", reader.id).where("kind", "=", "report").execute()).toHaveLength(1);
    // A person elsewhere has no account here to remove or suspend.
    expect(await moderate({ actor: admin, kind: "remote_user", targetId: farCookId(), action: "remove", why: "" })).toMatchObject({ ok: false, status: 400 });
    expect(await moderate({ actor: admin, kind: "remote_user", targetId: farCookId(), action: "suspend", why: "" })).toMatchObject({ ok: false, status: 400 });
    // Block domain is for what came from elsewhere only.
    expect(await moderate({ actor: admin, kind: "user", targetId: reader.id, action: "block-domain", why: "" })).toMatchObject({ ok: false, status: 400 });
    expect(await moderate({ actor: readerActor, kind: "remote_post", targetId: postNote.href, action: "block-domain", why: "" })).toMatchObject({ ok: false, status: 403 });

    expect(await moderate({ actor: admin, kind: "remote_post", targetId: postNote.href, action: "block-domain", why: "a spam server" })).toMatchObject({ ok: true });
    try {
      expect(await db.selectFrom("blocked_domains").select("blocked_by").where("domain", "=", "127.0.0.1").executeTakeFirst()).toEqual({ blocked_by: admin.id });
      expect(await db.selectFrom("remote_posts").select("id").where("id", "=", postNote.href).executeTakeFirst()).toBeUndefined();
      expect(await db.selectFrom("remote_follows").select("user_id").where("user_id", "=", reader.id).execute()).toEqual([]);
      const log = await db.selectFrom("moderation_log").select(["action", "target_kind", "summary", "why"]).where("target_id", "=", postNote.href).execute();
      expect(log).toEqual([{ action: "block-domain", target_kind: "remote_post", summary: "127.0.0.1 (Buy cheap pans at spam.example)", why: "a spam server" }]);
      // The same group cannot be acted on twice.
      expect(await moderate({ actor: admin, kind: "remote_user", targetId: farCookId(), action: "block-domain", why: "" })).toMatchObject({ ok: true });
      expect(await moderate({ actor: admin, kind: "remote_user", targetId: farCookId(), action: "dismiss", why: "" })).toMatchObject({ ok: false, status: 409 });
    } finally {
      expect(await unblockDomain({ actor: admin, domain: "127.0.0.1" })).toMatchObject({ ok: true });
    }
  });

  it("deleting an account sends Delete of its actor to the servers that know it", async () => {
    const admin = { id: (await makeUser({ role: "ADMIN" })).id, role: "ADMIN" as const };
    const leaving = await makeUser();
    const cookie = await signedInCookie(leaving.id);
    await followFarCook(leaving.id, cookie);
    const actorId = `${here.origin}/ap/users/${encodeURIComponent(leaving.id)}`;

    expect(await deleteUser({ actor: admin, userId: leaving.id })).toMatchObject({ ok: true });
    const deletion = await until(async () => received.find((activity) => activity instanceof Delete && activity.actorId?.href === actorId), "the Delete of the actor arriving");
    expect(deletion.objectId?.href).toBe(actorId);
  });
});

describe("federation: deliveries that cannot land", () => {
  it("a follow, a like or a reply whose activity cannot be queued is taken back: nothing here shows it done", async () => {
    // One who can no longer send (suspended: their keys are not handed out) stands for any queueing failure.
    const cook = await makeUser();
    const cookie = await signedInCookie(cook.id);
    await followFarCook(cook.id, cookie);
    const noteId = new URL(`${there.origin}/notes/unsendable-${cook.id}`);
    await sendFromThere("far-cook", cook.id, new Create({ id: new URL(`${noteId.href}/create`), actor: new URL(farCookId()), to: PUBLIC_COLLECTION, object: new Note({ id: noteId, attribution: new URL(farCookId()), content: "<p>Soup</p>" }) }));
    await until(() => db.selectFrom("remote_posts").select("id").where("id", "=", noteId.href).executeTakeFirst(), "their post");
    await setRemotePostLiked({ userId: cook.id, postId: noteId.href, liked: true });
    const rowsOf = async () => ({
      follows: await db.selectFrom("remote_follows").select(["actor_id", "accepted_at"]).where("user_id", "=", cook.id).execute(),
      likes: await db.selectFrom("remote_post_likes").select("post_id").where("user_id", "=", cook.id).execute(),
      replies: await db.selectFrom("remote_post_replies").select("id").where("user_id", "=", cook.id).execute(),
    });
    const before = await rowsOf();
    expect(before.likes).toHaveLength(1);

    await db.updateTable("users").set({ suspended_at: new Date().toISOString() }).where("id", "=", cook.id).execute();
    await expect(setRemoteFollowing({ userId: cook.id, actorId: farCookId(), following: false })).rejects.toThrow();
    await expect(setRemotePostLiked({ userId: cook.id, postId: noteId.href, liked: false })).rejects.toThrow();
    expect(await replyToRemotePost({ userId: cook.id, postId: noteId.href, text: "Never sent" })).toBeNull();
    expect(await rowsOf()).toEqual(before);
    await db.deleteFrom("remote_post_likes").where("user_id", "=", cook.id).execute();
    await db.deleteFrom("remote_follows").where("user_id", "=", cook.id).execute();
    await expect(setRemotePostLiked({ userId: cook.id, postId: noteId.href, liked: true })).rejects.toThrow();
    expect((await rowsOf()).likes).toEqual([]);
    await expect(setRemoteFollowing({ userId: cook.id, actorId: farCookId(), following: true })).rejects.toThrow();
    expect((await rowsOf()).follows).toEqual([]);
  });


  it("an inbox that answers 410 Gone gets nothing more: the next delivery there is dropped unsent", async () => {
    const cook = await makeUser();
    const gone = `${there.origin}/users/gone-cook`;
    await sendFromThere("gone-cook", cook.id, new Follow({ id: new URL(`${there.origin}/follows/gone-${cook.id}`), actor: new URL(gone), object: new URL(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`) }));
    await until(() => db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).executeTakeFirst(), "their follow");
    // Our Accept meets the 410 and the inbox is noted gone.
    await until(async () => goneHits === 1, "the Accept meeting 410");
    await until(() => db.selectFrom("federation_kv").select("key").where("key", "=", JSON.stringify(["recipals", "gone-inbox", `${gone}/inbox`])).executeTakeFirst(), "the inbox noted gone");
    // far-cook follows the cook too. A new recipe reaches far-cook, while its delivery to the gone
    // inbox is dropped when its turn comes (only the Accept's retry, a minute off, still waits).
    await sendFromThere("far-cook", cook.id, new Follow({ id: new URL(`${there.origin}/follows/alive-${cook.id}`), actor: new URL(farCookId()), object: new URL(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`) }));
    await until(async () => (await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).execute()).length === 2, "far-cook's follow");
    const { noteId } = await postRecipe(cook.id, "Nobody There Soup");
    await until(async () => received.find((activity) => activity instanceof Create && activity.objectId?.href === noteId.href), "the recipe reaching far-cook");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(goneHits).toBe(1);
  });
});

describe("federation: what Mastodon, Pixelfed and Misskey send", () => {
  // The shapes each sends (their documentation and what their servers put on the wire), trimmed
  // to what matters here: extension contexts and properties we do not read must not get in the way.
  const MASTODON_CONTEXT = [
    "https://www.w3.org/ns/activitystreams",
    { ostatus: "http://ostatus.org#", atomUri: "ostatus:atomUri", inReplyToAtomUri: "ostatus:inReplyToAtomUri", conversation: "ostatus:conversation", sensitive: "as:sensitive", toot: "http://joinmastodon.org/ns#", blurhash: "toot:blurhash", focalPoint: { "@container": "@list", "@id": "toot:focalPoint" } },
  ];

  it("a Mastodon reply (mention markup, contentMap, Mastodon's context) shows as a comment", async () => {
    const author = await makeUser();
    const { recipeId, noteId } = await postRecipe(author.id, "Mastodon Pie");
    const status = `${there.origin}/users/far-cook/statuses/1001`;
    const ourActor = `${here.origin}/ap/users/${encodeURIComponent(author.id)}`;
    const content = `<p><span class="h-card" translate="no"><a href="${ourActor}" class="u-url mention">@<span>${author.username}</span></a></span> Made this tonight &#x2014; superb!</p>`;
    const status202 = await postAsJson(author.id, {
      "@context": MASTODON_CONTEXT,
      id: `${status}/activity`,
      type: "Create",
      actor: farCookId(),
      published: new Date().toISOString(),
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [`${farCookId()}/followers`, ourActor],
      object: {
        id: status,
        type: "Note",
        summary: null,
        inReplyTo: noteId.href,
        published: new Date().toISOString(),
        url: `${there.origin}/@far-cook/1001`,
        attributedTo: farCookId(),
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        cc: [`${farCookId()}/followers`, ourActor],
        sensitive: false,
        atomUri: status,
        inReplyToAtomUri: noteId.href,
        conversation: `tag:${thereHost()},2026-11-30:objectId=1:objectType=Conversation`,
        content,
        contentMap: { en: content },
        attachment: [],
        tag: [{ type: "Mention", href: ourActor, name: `@${author.username}@${new URL(here.origin).host}` }],
        replies: { id: `${status}/replies`, type: "Collection", first: { type: "CollectionPage", next: `${status}/replies?page=true`, partOf: `${status}/replies`, items: [] } },
      },
    });
    expect(status202).toBeLessThan(300);
    await until(() => db.selectFrom("remote_comments").select("id").where("id", "=", status).executeTakeFirst(), "the reply being kept");
    const page = (await recipeLoader(routeArgs(getRequest(`/ReciPals/Recipes/${recipeId}`), { rid: recipeId }))) as { comments: { text: string; remote?: { url: string } }[] };
    expect(page.comments).toEqual([expect.objectContaining({ text: `@${author.username} Made this tonight — superb!`, remote: expect.objectContaining({ url: `${there.origin}/@far-cook/1001` }) })]);
  });

  it("a Pixelfed photo post (an Image attachment, Pixelfed's properties) arrives on the follower's Home with its photo", async () => {
    const cook = await makeUser();
    const cookie = await signedInCookie(cook.id);
    await followFarCook(cook.id, cookie);
    const post = `${there.origin}/p/far-cook/${Date.now()}`;
    expect(
      await postAsJson(cook.id, {
        "@context": ["https://w3id.org/security/v1", "https://www.w3.org/ns/activitystreams", { pixelfed: "http://pixelfed.org/ns#", commentsEnabled: { "@id": "pixelfed:commentsEnabled", "@type": "schema:Boolean" }, capabilities: { "@id": "pixelfed:capabilities", "@container": "@set" }, schema: "http://schema.org/" }],
        id: `${post}/activity`,
        type: "Create",
        actor: farCookId(),
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        cc: [`${farCookId()}/followers`],
        object: {
          id: post,
          type: "Note",
          summary: null,
          content: "Sunday focaccia 🍞 <a href=\"https://pixelfed.example/discover/tags/bread\" class=\"u-url hashtag\" rel=\"external nofollow noopener\">#bread</a>",
          inReplyTo: null,
          published: new Date().toISOString(),
          url: post,
          attributedTo: farCookId(),
          to: ["https://www.w3.org/ns/activitystreams#Public"],
          cc: [`${farCookId()}/followers`],
          sensitive: false,
          attachment: [{ type: "Image", mediaType: "image/jpeg", url: "https://pixelfed.example/storage/m/focaccia.jpg", name: "A golden focaccia", blurhash: "U9Fhb,00~q%M", width: 1080, height: 1350 }],
          tag: [{ type: "Hashtag", href: "https://pixelfed.example/discover/tags/bread", name: "#bread" }],
          commentsEnabled: true,
          capabilities: { announce: "https://www.w3.org/ns/activitystreams#Public", like: "https://www.w3.org/ns/activitystreams#Public", reply: null },
        },
      }),
    ).toBeLessThan(300);
    await until(() => db.selectFrom("remote_posts").select("id").where("id", "=", post).executeTakeFirst(), "the post being kept");
    const home = (await homeLoader(routeArgs(getRequest("/ReciPals/Home", cookie)))) as { remote: { id: string; text: string; image_url: string | null }[] };
    expect(home.remote.find((item) => item.id === post)).toMatchObject({ text: "Sunday focaccia 🍞 #bread", image_url: "https://pixelfed.example/storage/m/focaccia.jpg" });
  });

  it("a Misskey reaction (a Like with _misskey_reaction) counts as a like, and its Undo takes it back", async () => {
    const author = await makeUser();
    const { postId, noteId } = await postRecipe(author.id, "Misskey Noodles");
    const likeId = `${there.origin}/likes/9k2x${Date.now()}`;
    const like = { type: "Like", id: likeId, actor: farCookId(), object: noteId.href, content: "🍜", _misskey_reaction: "🍜" };
    const misskeyContext = ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1", { Key: "sec:Key", _misskey_content: "misskey:_misskey_content", _misskey_reaction: "misskey:_misskey_reaction", misskey: "https://misskey-hub.net/ns#" }];
    expect(await postAsJson(author.id, { "@context": misskeyContext, ...like })).toBeLessThan(300);
    await until(() => db.selectFrom("remote_likes").select("like_id").where("post_id", "=", postId).executeTakeFirst(), "the reaction counted as a like");
    expect(await postAsJson(author.id, { "@context": misskeyContext, type: "Undo", id: `${likeId}/undo`, actor: farCookId(), object: like })).toBeLessThan(300);
    await until(async () => !(await db.selectFrom("remote_likes").select("like_id").where("post_id", "=", postId).executeTakeFirst()), "the Undo taking it back");
  });
});

describe("federation: remote HTML is kept as text", () => {
  it("takes out every tag, script and style, decodes entities and keeps line breaks", () => {
    expect(remoteHtmlToText('<p>One &lt;two&gt; &#x1F373;</p><style>p{}</style><script src="x"></script><ul><li>a</li><li>b</li></ul>')).toBe("One <two> 🍳\n• a\n• b");
    expect(remoteHtmlToText('<img src=x onerror="alert(1)">Hi<!-- hidden -->')).toBe("Hi");
    expect(remoteHtmlToText("<p>" + "x".repeat(20_000) + "</p>")).toHaveLength(5000);
    expect(remoteHtmlToText(null)).toBe("");
    expect(remoteHtmlToText("<p>Steps</p><ol><li>Mix.</li><li>Bake.</li></ol><ul><li>Salt</li></ul>")).toBe("Steps\n1. Mix.\n2. Bake.\n• Salt");
  });
});
