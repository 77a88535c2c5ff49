import crypto from "node:crypto";

import type { Actor, Context, Federation } from "@fedify/fedify";

import { paths } from "~/lib/paths";

import { db, engineOf, type DB } from "../db/connection.server";
import { env } from "../env.server";
import { LimitReachedError, takeRateLimited, type RateLimit } from "../auth/limits.server";
import { log } from "../observability/log.server";
import { getRecipeDetail, type RecipeDetail } from "../queries/recipes.server";
import { DatabaseKvStore, DatabaseMessageQueue } from "./federation-store.server";
import { blockedDomains, domainOf, hostIsBlocked, isBlockedHost } from "./domain-blocks.server";
import { federationEnabled } from "./handles.server";
import { escapeHtml } from "../http/html-text.server";

// The library is loaded when the federation is first used: it takes half a second and 60 MB, which
// a server that does not federate (or has not been asked anything yet) does not pay.
type Fedify = typeof import("@fedify/fedify") & Pick<typeof import("@js-temporal/polyfill"), "Temporal">;
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
 * link, its photo is an attachment (Mastodon shows Notes and drops unknown types). Public, copied
 * to the author's followers.
 */
function recipeNote({ Note, Image, PUBLIC_COLLECTION, Temporal }: Fedify, ctx: Context<void>, recipe: PostedRecipe) {
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
  return new Note({
    id: ctx.getObjectUri(Note, { id: recipe.post_id }),
    attribution: ctx.getActorUri(recipe.user_created),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(recipe.user_created),
    name: recipe.name,
    content,
    url: link,
    published: Number.isFinite(published) ? Temporal.Instant.fromEpochMilliseconds(published) : null,
    attachments: recipe.photo && !recipe.photo.startsWith("data:") ? [new Image({ url: new URL(recipe.photo, ctx.origin), name: recipe.name })] : [],
  });
}

function build(library: Fedify, database: DB): Federation<void> {
  const { Accept, createFederation, Endpoints, Follow, Image, isActor, Note, Person, Undo } = library;
  const queue = new DatabaseMessageQueue(database);
  const federation = createFederation<void>({
    kv: new DatabaseKvStore(database),
    queue,
    // Deliveries start with the server (startFederationQueue), not with the first request.
    manuallyStartQueue: true,
    // URLs are made from PUBLIC_URL whatever Host a request came with.
    origin: env.PUBLIC_URL,
    // Tests only: two instances on this machine, over plain http.
    allowPrivateAddress: env.FEDERATION_ALLOW_PRIVATE === "1",
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
      items: rows.filter(reachable).map((row) => ({ id: new URL(row.id), inboxId: new URL(row.inbox), endpoints: row.shared_inbox ? { sharedInbox: new URL(row.shared_inbox) } : null })),
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
      if (await hostIsBlocked(follow.actorId.host, database)) return;
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
      const object = await undo.getObject(ctx);
      if (!(object instanceof Follow) || object.actorId?.href !== undo.actorId.href || !object.objectId) return;
      const target = ctx.parseUri(object.objectId);
      if (target?.type !== "actor") return;
      await database.deleteFrom("remote_followers").where("user_id", "=", target.identifier).where("actor_id", "=", undo.actorId.href).execute();
    })
    .onError((_ctx, error) => log.warn({ err: error }, "federation: an activity could not be handled"));

  // A recipe's post as a Note (what Mastodon and the rest show): remote servers fetch it by its id.
  federation.setObjectDispatcher(Note, NOTE_PATH, async (ctx, { id }) => {
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

/** Deliveries and inbox work waiting in the queue (the operator's metric), read without loading the library. */
export function federationQueueDepth(database: DB = db): Promise<number> {
  return new DatabaseMessageQueue(database).depth();
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
    const followed = await database.selectFrom("remote_followers").select("actor_id").where("user_id", "=", post.authorId).limit(1).executeTakeFirst();
    if (!followed) return;
    const library = await loadFedify();
    const ctx = (await federation(database)).createContext(new URL(env.PUBLIC_URL), undefined);
    const actor = ctx.getActorUri(post.authorId);
    const noteId = ctx.getObjectUri(library.Note, { id: post.postId });
    const activityId = new URL(`#${change}-${crypto.randomUUID()}`, noteId);
    let activity;
    if (change === "delete") {
      activity = new library.Delete({ id: activityId, actor, to: library.PUBLIC_COLLECTION, cc: ctx.getFollowersUri(post.authorId), object: new library.Tombstone({ id: noteId }) });
    } else {
      const recipe = await recipeOfPost(database, post.postId);
      if (!recipe) return;
      const note = recipeNote(library, ctx, recipe);
      const fields = { id: activityId, actor, to: library.PUBLIC_COLLECTION, cc: ctx.getFollowersUri(post.authorId), object: note };
      activity = change === "create" ? new library.Create(fields) : new library.Update({ ...fields, updated: library.Temporal.Now.instant() });
    }
    await ctx.sendActivity({ identifier: post.authorId }, "followers", activity, { preferSharedInbox: true });
  } catch (error) {
    log.warn({ err: error, change, postId: post.postId }, "federation: a recipe could not be sent to followers elsewhere");
  }
}
