import crypto from "node:crypto";

import type { Actor, Context, Federation, MessageQueue } from "@fedify/fedify";

import { paths } from "~/lib/paths";

import { db, engineOf, postgresUrlOf, type DB } from "../db/connection.server";
import { env } from "../env.server";
import { LimitReachedError, takeRateLimited, type RateLimit } from "../auth/limits.server";
import { log } from "../observability/log.server";
import { CacheScope, changing } from "../cache/scopes.server";
import { getRecipeDetail, type RecipeDetail } from "../queries/recipes.server";
import { DatabaseKvStore, DatabaseMessageQueue, markInboxGone } from "./federation-store.server";
import { PgBossMessageQueue, pgBossDepth } from "./pg-boss-queue.server";
import { blockedDomains, domainOf, hostIsBlocked, isBlockedHost } from "./domain-blocks.server";
import { federationEnabled } from "./handles.server";
import { escapeHtml } from "../http/html-text.server";
import { loadRemoteDocument } from "./remote-documents.server";
import { noteWithRecipe } from "./recipe-properties.server";
import {
  acceptRemoteFollow,
  deleteRemoteObject,
  dropRemoteFollow,
  dropRemoteLike,
  isFollowedHere,
  isRemoteBlocked,
  storeRemoteComment,
  storeRemoteLike,
  storeRemotePost,
  updateRemoteText,
} from "./remote-store.server";
import { remoteHtmlToText, safeRemoteUrl } from "./remote-text.server";

// The library is loaded when the federation is first used: it takes half a second and 60 MB, which
// a server that does not federate (or has not been asked anything yet) does not pay.
export type Fedify = typeof import("@fedify/fedify") & Pick<typeof import("@js-temporal/polyfill"), "Temporal">;
let fedify: Promise<Fedify> | null = null;
const loadFedify = () =>
  (fedify ??= Promise.all([import("@fedify/fedify"), import("@js-temporal/polyfill")]).then(([library, { Temporal }]) => ({ ...library, Temporal })));

// Each ReciPals a member of the fediverse (docs/federation.md): people are ActivityPub `Person`
// actors at /ap/users/{id}, found by WebFinger as @username@host, with a shared inbox at /ap/inbox.
// Fedify does the protocol — HTTP Signatures (checked on every inbox POST, made on every
// delivery), JSON-LD, WebFinger, NodeInfo, retries — over our database (federation-store.server.ts).

const ACTOR_PATH = "/ap/users/{identifier}";
const NOTE_PATH = "/ap/posts/{id}";
const INBOX_PATH = "/ap/users/{identifier}/inbox";
const SHARED_INBOX_PATH = "/ap/inbox";
const FOLLOWERS_PATH = "/ap/users/{identifier}/followers";

interface LocalPerson {
  id: string;
  username: string;
  name: string;
  bio: string;
  profile: string | null;
}

function localPerson(database: DB, where: { id: string } | { username: string }): Promise<LocalPerson | undefined> {
  let query = database.selectFrom("users").select(["id", "username", "name", "bio", "profile"]).where("suspended_at", "is", null);
  query = "id" in where ? query.where("id", "=", where.id) : query.where(engineOf(database).equalsIgnoringCase("username", where.username));
  return query.executeTakeFirst();
}

/** A person's keys: made the first time their actor is asked for, then kept (actor_keys). */
async function keyPairsOf({ generateCryptoKeyPair, exportJwk, importJwk }: Fedify, database: DB, userId: string): Promise<CryptoKeyPair[]> {
  let row = await database.selectFrom("actor_keys").selectAll().where("user_id", "=", userId).executeTakeFirst();
  if (!row) {
    const [rsa, ed25519] = await Promise.all([generateCryptoKeyPair("RSASSA-PKCS1-v1_5"), generateCryptoKeyPair("Ed25519")]);
    const made = {
      user_id: userId,
      rsa_public: JSON.stringify(await exportJwk(rsa.publicKey)),
      rsa_private: JSON.stringify(await exportJwk(rsa.privateKey)),
      ed25519_public: JSON.stringify(await exportJwk(ed25519.publicKey)),
      ed25519_private: JSON.stringify(await exportJwk(ed25519.privateKey)),
      created_at: Date.now(),
    };
    // Two first requests at once: the first pair stored wins, both answer with it.
    await database.insertInto("actor_keys").values(made).onConflict((conflict) => conflict.column("user_id").doNothing()).execute();
    row = await database.selectFrom("actor_keys").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
  }
  const pair = async (publicJwk: string, privateJwk: string): Promise<CryptoKeyPair> => ({
    publicKey: await importJwk(JSON.parse(publicJwk) as JsonWebKey, "public"),
    privateKey: await importJwk(JSON.parse(privateJwk) as JsonWebKey, "private"),
  });
  return [await pair(row.rsa_public, row.rsa_private), await pair(row.ed25519_public, row.ed25519_private)];
}

/** Keeps what we know of a remote actor (their handle, name and inbox), answering its id. */
export async function rememberActor(database: DB, actor: Actor): Promise<string | null> {
  if (!actor.id || !actor.inboxId) return null;
  const host = actor.id.host;
  const name = actor.preferredUsername?.toString() ?? actor.id.pathname.split("/").pop() ?? "someone";
  const icon = await actor.getIcon().catch(() => null);
  const iconUrl = icon?.url instanceof URL ? icon.url.href : (icon?.url?.href?.href ?? null);
  const row = {
    id: actor.id.href,
    handle: `${name}@${host}`,
    host,
    name: actor.name?.toString() ?? name,
    summary: actor.summary?.toString() ?? "",
    icon_url: iconUrl,
    url: actor.url instanceof URL ? actor.url.href : null,
    inbox: actor.inboxId.href,
    shared_inbox: actor.endpoints?.sharedInbox?.href ?? null,
    fetched_at: Date.now(),
  };
  const { id: _id, ...changes } = row;
  await database
    .insertInto("remote_actors")
    .values(row)
    .onConflict((conflict) => conflict.column("id").doUpdateSet(changes))
    .execute();
  return row.id;
}

/** What a recipe's Note says: the recipe behind a post, with its author. */
type PostedRecipe = RecipeDetail & { post_id: string; user_created: string; posted_at: string };

async function recipeOfPost(database: DB, postId: string): Promise<PostedRecipe | null> {
  const post = await database
    .selectFrom("posts as p")
    .innerJoin("users as u", "u.id", "p.created_by")
    .select(["p.recipe_id", "p.created_at"])
    .where("p.id", "=", postId)
    .where("u.suspended_at", "is", null)
    .executeTakeFirst();
  if (!post?.recipe_id) return null;
  const recipe = await getRecipeDetail(post.recipe_id, database);
  if (!recipe?.user_created) return null;
  return { ...recipe, post_id: postId, user_created: recipe.user_created, posted_at: String(post.created_at) };
}

/**
 * A recipe as a Note: its HTML holds the name, the description, the ingredients, the steps and a
 * link, its photo is an attachment (Mastodon shows Notes and drops unknown types); the recipe
 * also travels as schema.org properties (recipe-properties.server.ts). Public, copied to the
 * author's followers.
 */
function recipeNote({ Note, Image, PUBLIC_COLLECTION, Temporal }: Fedify, ctx: Context<void>, recipe: PostedRecipe, publishedNow = false) {
  const link = new URL(paths.recipe(recipe.recipe_id), ctx.origin);
  const list = (items: string[], tag: "ul" | "ol") => (items.length ? `<${tag}>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join("")}</${tag}>` : "");
  const ingredients = recipe.ingredients_sec
    .map((section) => `${section.title ? `<p>${escapeHtml(section.title)}</p>` : ""}${list(section.ingredients, "ul")}`)
    .join("");
  const content = [
    `<p><strong>${escapeHtml(recipe.name)}</strong></p>`,
    recipe.description ? `<p>${escapeHtml(recipe.description)}</p>` : "",
    ingredients ? `<p>Ingredients</p>${ingredients}` : "",
    recipe.steps.length ? `<p>Steps</p>${list(recipe.steps, "ol")}` : "",
    `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.href)}</a></p>`,
  ].join("");
  const published = Date.parse(recipe.posted_at);
  return noteWithRecipe(Note, {
    id: ctx.getObjectUri(Note, { id: recipe.post_id }),
    attribution: ctx.getActorUri(recipe.user_created),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(recipe.user_created),
    name: recipe.name,
    content,
    url: link,
    // A post keeps the day it was posted: its Create says the moment, which only it knows.
    published: publishedNow ? Temporal.Now.instant() : Number.isFinite(published) ? Temporal.Instant.fromEpochMilliseconds(published) : null,
    attachments: recipe.photo && !recipe.photo.startsWith("data:") ? [new Image({ url: new URL(recipe.photo, ctx.origin), name: recipe.name })] : [],
  }, recipe);
}

/** A post here, by someone not suspended, that a remote Like or reply names (our Note's address). */
async function postNamed(ctx: Context<void>, { Note }: Fedify, address: URL | null, database: DB): Promise<{ id: string; recipe_id: string | null; created_by: string | null } | null> {
  if (!address) return null;
  const target = ctx.parseUri(address);
  if (target?.type !== "object" || target.class !== Note || !target.values.id) return null;
  const post = await database
    .selectFrom("posts as p")
    .innerJoin("users as u", "u.id", "p.created_by")
    .select(["p.id", "p.recipe_id", "p.created_by"])
    .where("p.id", "=", target.values.id)
    .where("u.suspended_at", "is", null)
    .executeTakeFirst();
  return post ?? null;
}

/** A change to what a post here shows (a like or a reply from elsewhere): the kept pages of its recipe are renewed with it. */
function changingPost<T>(post: { recipe_id: string | null } | null | undefined, database: DB, work: (trx: DB) => Promise<T>): Promise<T> {
  return changing([post?.recipe_id ? CacheScope.recipe(post.recipe_id) : null], work, database);
}

/** The post a reply from elsewhere answers, with its recipe. */
function postOfRemoteComment(id: string, database: DB) {
  return database.selectFrom("remote_comments as c").innerJoin("posts as p", "p.id", "c.post_id").select(["p.id", "p.recipe_id"]).where("c.id", "=", id).executeTakeFirst();
}

type RemoteNote = InstanceType<Fedify["Note"]>;

/** What we keep of a remote Note: its text without tags, its first image, its address. */
async function readRemoteNote({ Image, Document }: Fedify, ctx: Context<void>, note: RemoteNote) {
  let imageUrl: string | null = null;
  try {
    for await (const attachment of note.getAttachments({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader })) {
      if (!(attachment instanceof Image) && !(attachment instanceof Document)) continue;
      if (attachment instanceof Document && !attachment.mediaType?.startsWith("image/")) continue;
      const url = attachment.url instanceof URL ? attachment.url : (attachment.url?.href ?? null);
      imageUrl = safeRemoteUrl(url);
      if (imageUrl) break;
    }
  } catch {
    imageUrl = null;
  }
  const link = note.url instanceof URL ? note.url : (note.url?.href ?? null);
  const published = note.published?.epochMilliseconds;
  const name = note.name ? remoteHtmlToText(note.name.toString()).slice(0, 200) || null : null;
  let text = remoteHtmlToText(note.content?.toString());
  // A text that opens with its title (as ReciPals' own Notes do) does not repeat it under the title.
  if (name && text.startsWith(name)) text = text.slice(name.length).trim();
  return {
    text,
    name,
    imageUrl,
    url: safeRemoteUrl(link) ?? note.id!.href,
    published: typeof published === "number" && Number.isFinite(published) ? Math.min(published, Date.now()) : Date.now(),
  };
}

/** The Note a Create or Update carries, when its author is the activity's actor on the actor's own server. */
async function noteOf({ Note }: Fedify, ctx: Context<void>, activity: { actorId: URL | null; getObject: (options: { documentLoader: Context<void>["documentLoader"]; contextLoader: Context<void>["contextLoader"] }) => Promise<unknown> }) {
  const actorId = activity.actorId;
  if (!actorId) return null;
  const object = await activity.getObject({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader }).catch(() => null);
  if (!(object instanceof Note) || !object.id) return null;
  // One origin for the actor and everything it sends: a server speaks only for its own objects.
  if (object.id.origin !== actorId.origin || object.attributionId?.href !== actorId.href) return null;
  return { actorId, note: object };
}

/** The id of a reply written here, under NOTE_PATH: `reply-` and a random id. */
export const REPLY_PREFIX = "reply-";

/** A reply written here to a post elsewhere, with whom it answers; none while its author is suspended. */
export function replyRow(database: DB, id: string) {
  return database
    .selectFrom("remote_post_replies as r")
    .innerJoin("remote_posts as p", "p.id", "r.post_id")
    .innerJoin("remote_actors as a", "a.id", "p.actor_id")
    .innerJoin("users as u", "u.id", "r.user_id")
    .select(["r.id", "r.user_id", "r.post_id", "r.text", "r.created_at", "a.id as author_id", "a.handle as author_handle"])
    .where("r.id", "=", id)
    .where("u.suspended_at", "is", null)
    .executeTakeFirst();
}

type ReplyRow = NonNullable<Awaited<ReturnType<typeof replyRow>>>;

/** A reply written here as a Note answering the post, public, mentioning its author (so their server shows it to them). */
export function replyNote({ Mention, Note, PUBLIC_COLLECTION, Temporal }: Fedify, ctx: Context<void>, reply: ReplyRow) {
  const author = new URL(reply.author_id);
  return new Note({
    id: new URL(reply.id),
    attribution: ctx.getActorUri(reply.user_id),
    replyTarget: new URL(reply.post_id),
    to: PUBLIC_COLLECTION,
    cc: author,
    content: `<p>${escapeHtml(reply.text).replace(/\n/g, "<br>")}</p>`,
    published: Temporal.Instant.fromEpochMilliseconds(Number(reply.created_at)),
    tags: [new Mention({ href: author, name: `@${reply.author_handle}` })],
  });
}

function build(library: Fedify, database: DB): Federation<void> {
  const { Accept, Create, createFederation, Delete, Endpoints, Follow, Image, isActor, Like, Note, Person, Reject, Undo, Update } = library;
  const queue = queueOf(database);
  const allowPrivate = env.FEDERATION_ALLOW_PRIVATE === "1";
  const federation = createFederation<void>({
    kv: new DatabaseKvStore(database),
    queue,
    // Other servers' documents are read through the import's guard (remote-documents.server.ts);
    // the JSON-LD contexts the library carries are read from memory.
    documentLoaderFactory: () => loadRemoteDocument,
    // A failed delivery is tried again after 1, 2, 4… minutes, then every 12 hours: about three
    // days in all before the library gives up. An inbox that answers 410 Gone gets nothing more.
    outboxRetryPolicy: library.createExponentialBackoffPolicy({ initialDelay: { minutes: 1 }, maxDelay: { hours: 12 }, maxAttempts: 14 }),
    onOutboxError: (error) => {
      const gone = /^Failed to send activity \S+ to (\S+) \(410 /.exec(error.message)?.[1];
      if (gone) void markInboxGone(gone, database).catch((failure: unknown) => log.warn({ err: failure }, "federation: a gone inbox could not be noted"));
    },
    contextLoaderFactory: () => (url: string) => library.fetchDocumentLoader(url, allowPrivate),
    // Deliveries start with the server (startFederationQueue), not with the first request.
    manuallyStartQueue: true,
    // URLs are made from PUBLIC_URL whatever Host a request came with.
    origin: env.PUBLIC_URL,
    // Tests only: two instances on this machine, over plain http.
    allowPrivateAddress: allowPrivate,
    userAgent: { software: "ReciPals/0.1.0", url: env.PUBLIC_URL ? new URL(env.PUBLIC_URL) : undefined },
  });

  federation
    .setActorDispatcher(ACTOR_PATH, async (ctx, identifier) => {
      const person = await localPerson(database, { id: identifier });
      if (!person) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      const profile = new URL(paths.profile(person.id), ctx.origin);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: person.username,
        name: person.name,
        summary: person.bio ? `<p>${escapeHtml(person.bio)}</p>` : null,
        url: profile,
        icon: person.profile ? new Image({ url: new URL(person.profile, ctx.origin) }) : null,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        followers: ctx.getFollowersUri(identifier),
        publicKey: keys[0]?.cryptographicKey,
        assertionMethods: keys.map((key) => key.multikey),
        manuallyApprovesFollowers: false,
        discoverable: true,
      });
    })
    .mapHandle(async (_ctx, username) => (await localPerson(database, { username }))?.id ?? null)
    .setKeyPairsDispatcher(async (_ctx, identifier) => ((await localPerson(database, { id: identifier })) ? keyPairsOf(library, database, identifier) : []));

  federation
    .setFollowersDispatcher(FOLLOWERS_PATH, async (_ctx, identifier) => {
    const rows = await database
      .selectFrom("remote_followers as f")
      .innerJoin("remote_actors as a", "a.id", "f.actor_id")
      .select(["a.id", "a.inbox", "a.shared_inbox"])
      .where("f.user_id", "=", identifier)
      .orderBy("f.created_at")
      .execute();
    // Nothing goes to a blocked server, whatever is still on record.
    const blocked = (await blockedDomains(database)).map((row) => row.domain);
    const reachable = (row: { id: string; inbox: string; shared_inbox: string | null }) =>
      [row.id, row.inbox, row.shared_inbox].every((address) => !address || !isBlockedHost(new URL(address).host, blocked));
    return {
      items: rows.filter(reachable).map(recipientOf),
    };
    })
    .setCounter(async (_ctx, identifier) =>
      Number((await database.selectFrom("remote_followers").select((eb) => eb.fn.countAll<number>().as("n")).where("user_id", "=", identifier).executeTakeFirstOrThrow()).n),
    );

  federation
    .setInboxListeners(INBOX_PATH, SHARED_INBOX_PATH)
    .on(Follow, async (ctx, follow) => {
      const followId = follow.id;
      if (!followId || !follow.actorId || !follow.objectId) return;
      const target = ctx.parseUri(follow.objectId);
      if (target?.type !== "actor") return;
      const person = await localPerson(database, { id: target.identifier });
      if (!person) return;
      if ((await hostIsBlocked(follow.actorId.host, database)) || (await isRemoteBlocked(person.id, follow.actorId.href, database))) return;
      const follower = await follow.getActor(ctx);
      if (!isActor(follower) || follower.id?.href !== follow.actorId.href) return;
      const actorId = await rememberActor(database, follower);
      if (!actorId) return;
      await database
        .insertInto("remote_followers")
        .values({ user_id: person.id, actor_id: actorId, follow_id: followId.href, created_at: Date.now() })
        .onConflict((conflict) => conflict.columns(["user_id", "actor_id"]).doUpdateSet({ follow_id: followId.href }))
        .execute();
      await ctx.sendActivity(
        { identifier: person.id },
        follower,
        new Accept({ id: new URL(`#accepts/${crypto.randomUUID()}`, ctx.getActorUri(person.id)), actor: ctx.getActorUri(person.id), object: follow }),
      );
    })
    .on(Undo, async (ctx, undo) => {
      if (!undo.actorId) return;
      const object = await undo.getObject(ctx).catch(() => null);
      if (object instanceof Follow) {
        if (object.actorId?.href !== undo.actorId.href || !object.objectId) return;
        const target = ctx.parseUri(object.objectId);
        if (target?.type !== "actor") return;
        await database.deleteFrom("remote_followers").where("user_id", "=", target.identifier).where("actor_id", "=", undo.actorId.href).execute();
      } else if (object instanceof Like) {
        if (object.actorId && object.actorId.href !== undo.actorId.href) return;
        const post = await postNamed(ctx, library, object.objectId, database);
        await changingPost(post, database, (trx) => dropRemoteLike({ actorId: undo.actorId!.href, likeId: object.id?.href ?? null, postId: post?.id ?? null }, trx));
      } else if (undo.objectId) {
        // A Like named only by its address (which we cannot fetch): undone by that address.
        const likeId = undo.objectId.href;
        const post = await database.selectFrom("remote_likes as l").innerJoin("posts as p", "p.id", "l.post_id").select(["p.id", "p.recipe_id"]).where("l.like_id", "=", likeId).executeTakeFirst();
        await changingPost(post, database, (trx) => dropRemoteLike({ actorId: undo.actorId!.href, likeId, postId: null }, trx));
      }
    })
    // Their answer to a Follow from here: the follow completes, or ends.
    .on(Accept, async (_ctx, accept) => {
      if (!accept.actorId || !accept.objectId) return;
      await acceptRemoteFollow({ actorId: accept.actorId.href, followId: accept.objectId.href }, database);
    })
    .on(Reject, async (_ctx, reject) => {
      if (!reject.actorId || !reject.objectId) return;
      await dropRemoteFollow({ actorId: reject.actorId.href, followId: reject.objectId.href }, database);
    })
    // A post from someone people here follow, or a reply to a post here.
    .on(Create, async (ctx, create) => {
      const sent = await noteOf(library, ctx, create);
      if (!sent) return;
      const { actorId, note } = sent;
      const replyTo = note.replyTargetId;
      const post = replyTo ? await postNamed(ctx, library, replyTo, database) : null;
      // A reply to anything but a post here, or a post from someone nobody here follows, is not kept;
      // nor a reply from someone the post's author blocked.
      if (replyTo ? !post : !(await isFollowedHere(actorId.href, database))) return;
      if (post?.created_by && (await isRemoteBlocked(post.created_by, actorId.href, database))) return;
      const actor = await create.getActor(ctx).catch(() => null);
      if (!isActor(actor) || actor.id?.href !== actorId.href || !(await rememberActor(database, actor))) return;
      const read = await readRemoteNote(library, ctx, note);
      if (post) {
        if (!read.text) return;
        await changingPost(post, database, (trx) => storeRemoteComment({ id: note.id!.href, postId: post.id, actorId: actorId.href, url: read.url, text: read.text }, trx));
      } else {
        await storeRemotePost({ id: note.id!.href, actor_id: actorId.href, url: read.url, name: read.name, text: read.text, image_url: read.imageUrl, published_at: read.published }, database);
      }
    })
    .on(Update, async (ctx, update) => {
      const sent = await noteOf(library, ctx, update);
      if (sent) {
        const read = await readRemoteNote(library, ctx, sent.note);
        const post = await postOfRemoteComment(sent.note.id!.href, database);
        await changingPost(post, database, (trx) => updateRemoteText({ id: sent.note.id!.href, actorId: sent.actorId.href, text: read.text, name: read.name, imageUrl: read.imageUrl }, trx));
        return;
      }
      // A person's profile changed: what we show of them follows.
      const object = await update.getObject(ctx).catch(() => null);
      if (isActor(object) && object.id && update.actorId && object.id.href === update.actorId.href) {
        const known = await database.selectFrom("remote_actors").select("id").where("id", "=", object.id.href).executeTakeFirst();
        if (known) await rememberActor(database, object);
      }
    })
    .on(Delete, async (_ctx, deletion) => {
      const actorId = deletion.actorId;
      const objectId = deletion.objectId;
      if (!actorId || !objectId) return;
      // The person's account is gone: everything of theirs here goes with it.
      if (objectId.href === actorId.href) {
        // Their likes and replies leave every page that showed them.
        await changing([CacheScope.everything], (trx) => trx.deleteFrom("remote_actors").where("id", "=", actorId.href).execute(), database);
        return;
      }
      if (objectId.origin !== actorId.origin) return;
      const post = await postOfRemoteComment(objectId.href, database);
      await changingPost(post, database, (trx) => deleteRemoteObject({ id: objectId.href, actorId: actorId.href }, trx));
    })
    .on(Like, async (ctx, like) => {
      if (!like.id || !like.actorId) return;
      const post = await postNamed(ctx, library, like.objectId, database);
      if (!post || (post.created_by && (await isRemoteBlocked(post.created_by, like.actorId.href, database)))) return;
      const actor = await like.getActor(ctx).catch(() => null);
      if (!isActor(actor) || actor.id?.href !== like.actorId.href || !(await rememberActor(database, actor))) return;
      await changingPost(post, database, (trx) => storeRemoteLike({ postId: post.id, actorId: like.actorId!.href, likeId: like.id!.href }, trx));
    })
    .onError((_ctx, error) => log.warn({ err: error }, "federation: an activity could not be handled"));

  // A recipe's post as a Note (what Mastodon and the rest show), or a reply written here to a post
  // elsewhere (`reply-…`): remote servers fetch either by its id.
  federation.setObjectDispatcher(Note, NOTE_PATH, async (ctx, { id }) => {
    if (id.startsWith(REPLY_PREFIX)) {
      const reply = await replyRow(database, ctx.getObjectUri(Note, { id }).href);
      return reply ? replyNote(library, ctx, reply) : null;
    }
    const recipe = await recipeOfPost(database, id);
    return recipe ? recipeNote(library, ctx, recipe) : null;
  });

  federation.setNodeInfoDispatcher("/nodeinfo/2.1", async () => {
    const count = async (table: "users" | "posts" | "comments") =>
      Number((await database.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);
    const [users, posts, comments] = await Promise.all([count("users"), count("posts"), count("comments")]);
    return {
      software: { name: "recipals", version: { major: 0, minor: 1, patch: 0 }, homepage: env.PUBLIC_URL ? new URL(env.PUBLIC_URL) : undefined },
      protocols: ["activitypub"],
      usage: { users: { total: users }, localPosts: posts, localComments: comments },
      openRegistrations: true,
    };
  });

  return federation;
}

let built: { database: DB; federation: Promise<Federation<void>> } | null = null;
/** Set by the server: the queue is worked, until this aborts, from when the federation is built. */
let queueWork: AbortSignal | null = null;

/** This server's federation (over `database`, the app's by default), built on first use. */
export function federation(database: DB = db): Promise<Federation<void>> {
  if (!built || built.database !== database) {
    const made = loadFedify().then((library) => {
      const federation = build(library, database);
      if (queueWork && database === db) workQueue(federation, queueWork);
      return federation;
    });
    built = { database, federation: made };
  }
  return built.federation;
}

function workQueue(federation: Federation<void>, signal: AbortSignal): void {
  federation.startQueue(undefined, { signal }).catch((error: unknown) => log.error({ err: error }, "federation: the queue stopped"));
}

/**
 * The queue of deliveries and inbox work: on PostgreSQL a maintained job queue (pg-boss), on the
 * embedded SQLite default a small table of ours (federation-store.server.ts), the same to the library.
 */
function queueOf(database: DB): MessageQueue {
  const url = postgresUrlOf(database);
  return url ? new PgBossMessageQueue(url, database) : new DatabaseMessageQueue(database);
}

/** Deliveries and inbox work waiting in the queue (the operator's metric), read without loading the library. */
export function federationQueueDepth(database: DB = db): Promise<number> {
  return postgresUrlOf(database) ? pgBossDepth(database) : new DatabaseMessageQueue(database).depth();
}

/**
 * Works the queue (deliveries to other servers, inbox work) until `signal` aborts: the server
 * calls it when it starts. The library is loaded now only when work is waiting (deliveries a
 * restart interrupted); otherwise with the federation's first request.
 */
export function startFederationQueue(signal: AbortSignal, database: DB = db): void {
  if (!federationEnabled()) return;
  queueWork = signal;
  federationQueueDepth(database).then(
    (waiting) => (waiting > 0 ? federation(database) : null),
    (error: unknown) => log.warn({ err: error }, "federation: reading the queue failed"),
  );
}

/** Activities one server may deliver a minute, counted by the server that signed them. */
export const INBOX_LIMIT: RateLimit = { bucket: "federation-inbox", limit: 300, windowMs: 60 * 1000 };

/** The server an inbox POST says it comes from: the host of its signature's key. */
function signingHost(request: Request): string | null {
  const keyId = /keyId="([^"]+)"/.exec(request.headers.get("signature") ?? "")?.[1];
  if (!keyId) return null;
  try {
    return new URL(keyId).host;
  } catch {
    return null;
  }
}

/**
 * Before any work on an inbox POST: a blocked server's is refused (403), and so is one more from
 * a server past INBOX_LIMIT this minute (429), and one without a signature (401). A signature is
 * then checked by the library (a wrong one: 401).
 */
async function inboxRefusal(request: Request, database: DB): Promise<Response | null> {
  if (!/\/inbox$/.test(new URL(request.url).pathname)) return null;
  const host = signingHost(request);
  // Every activity comes with an HTTP Signature (what Mastodon and the rest send): one without is
  // refused here, before a block or a server's count could be dodged by leaving it out.
  if (!host) return new Response("Activities must carry an HTTP Signature.", { status: 401, headers: { "Content-Type": "text/plain" } });
  if (await hostIsBlocked(host, database)) return new Response("This server does not accept activities from yours.", { status: 403, headers: { "Content-Type": "text/plain" } });
  try {
    await takeRateLimited(INBOX_LIMIT, domainOf(host), database);
  } catch (error) {
    if (!(error instanceof LimitReachedError)) throw error;
    return new Response("Too many activities from your server; try again later.", { status: 429, headers: { "Content-Type": "text/plain", "Retry-After": String(error.retryAfterSeconds) } });
  }
  return null;
}

/** A request to the federation's addresses (WebFinger, NodeInfo, actors, inboxes), answered by Fedify. */
export async function federationAnswer(request: Request, database: DB = db): Promise<Response> {
  if (!federationEnabled()) return new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain" } });
  if (request.method === "POST") {
    const refused = await inboxRefusal(request, database);
    if (refused) return refused;
  }
  const answer = await (await federation(database)).fetch(request, {
    contextData: undefined,
    onNotFound: () => new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain" } }),
    // A browser asking for an actor gets the person's profile page.
    onNotAcceptable: (asked) => {
      const match = /^\/ap\/users\/([^/]+)$/.exec(new URL(asked.url).pathname);
      return match ? Response.redirect(new URL(paths.profile(decodeURIComponent(match[1]!)), env.PUBLIC_URL).href, 302) : new Response("Not acceptable.", { status: 406 });
    },
  });
  // Not for the shared page cache: the same address answers people and servers differently.
  const headers = new Headers(answer.headers);
  headers.set("Cache-Control", "private, max-age=0");
  return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
}

/**
 * Tells a recipe's author's followers on other servers that it was posted, changed or deleted
 * (`Create`, `Update`, `Delete` of its Note), through the durable queue. Nothing is loaded or sent
 * when the author has no followers elsewhere. Never throws: a delivery problem is the queue's.
 */
export async function publishRecipe(
  change: "create" | "update" | "delete",
  post: { postId: string; authorId: string | null },
  database: DB = db,
): Promise<void> {
  if (!federationEnabled() || !post.authorId || !env.PUBLIC_URL) return;
  try {
    // A suspended author sends nothing more (and their actor answers 404).
    const followed = await database
      .selectFrom("remote_followers as f")
      .innerJoin("users as u", "u.id", "f.user_id")
      .select("f.actor_id")
      .where("f.user_id", "=", post.authorId)
      .where("u.suspended_at", "is", null)
      .limit(1)
      .executeTakeFirst();
    if (!followed) return;
    const { library, ctx } = await sending(database, env.PUBLIC_URL);
    const actor = ctx.getActorUri(post.authorId);
    const noteId = ctx.getObjectUri(library.Note, { id: post.postId });
    const activityId = new URL(`#${change}-${crypto.randomUUID()}`, noteId);
    let activity;
    if (change === "delete") {
      activity = new library.Delete({ id: activityId, actor, to: library.PUBLIC_COLLECTION, cc: ctx.getFollowersUri(post.authorId), object: new library.Tombstone({ id: noteId }) });
    } else {
      const recipe = await recipeOfPost(database, post.postId);
      if (!recipe) return;
      const note = recipeNote(library, ctx, recipe, change === "create");
      const fields = { id: activityId, actor, to: library.PUBLIC_COLLECTION, cc: ctx.getFollowersUri(post.authorId), object: note };
      activity = change === "create" ? new library.Create(fields) : new library.Update({ ...fields, updated: library.Temporal.Now.instant() });
    }
    await ctx.sendActivity({ identifier: post.authorId }, "followers", activity, { preferSharedInbox: true });
  } catch (error) {
    log.warn({ err: error, change, postId: post.postId }, "federation: a recipe could not be sent to followers elsewhere");
  }
}

/** A person elsewhere as a delivery's recipient: their inbox, and their server's shared one. */
type KnownActor = { id: string; inbox: string; shared_inbox: string | null };
export function recipientOf(actor: KnownActor) {
  return { id: new URL(actor.id), inboxId: new URL(actor.inbox), endpoints: actor.shared_inbox ? { sharedInbox: new URL(actor.shared_inbox) } : null };
}

/** The library and a context for sending as this server (PUBLIC_URL). */
export async function sending(database: DB, publicUrl: string) {
  const library = await loadFedify();
  return { library, ctx: (await federation(database)).createContext(new URL(publicUrl), undefined) };
}
