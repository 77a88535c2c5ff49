import crypto from "node:crypto";

import { Accept, Create, Delete, createFederation, Follow, generateCryptoKeyPair, Image, isActor, MemoryKvStore, Note, Person, Tombstone, Undo, Update, type Activity, type Federation } from "@fedify/fedify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { closeDatabaseHandle, db, migrateToLatest, openDatabase, type DB } from "~/server/db/connection.server";
import { answerFederation } from "~/server/api/federation-api.server";
import { DatabaseKvStore, DatabaseMessageQueue, sweepExpiredEntries } from "~/server/federation/federation-store.server";
import { federationQueueDepth, INBOX_LIMIT, startFederationQueue } from "~/server/federation/federation.server";
import { takeRateLimited } from "~/server/auth/limits.server";
import { handleOf } from "~/server/federation/handles.server";
import { blockDomain, FEDERATION_MESSAGES, unblockDomain } from "~/server/services/federation-service.server";
import { createRecipe, deleteRecipe, updateRecipe } from "~/server/services/recipes-service.server";

import { makeUser } from "../support/app";
import { serve, until } from "../support/federation";
import { useSetting } from "../support/settings";

// Federation over ActivityPub (docs/federation.md), the first part: this server's people are
// found by WebFinger and served as actors; NodeInfo says what the server is; a person on another
// server follows one here with a signed Follow, gets a signed Accept back, and an Undo ends it.
// The other server is a real one on this machine, made with the same library (not a mock): it
// serves its actor and keys over HTTP and checks our signature on the Accept it receives.

let here: { origin: string; close: () => void };
let there: { origin: string; close: () => void };
let remote: Federation<void>;
const accepted: Accept[] = [];
/** What the other server's inbox got besides Accepts: Create, Update and Delete of Notes. */
const received: Activity[] = [];
const work = new AbortController();
let cook: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  here = await serve((request) => answerFederation(request));
  useSetting("PUBLIC_URL", here.origin);
  useSetting("FEDERATION_ALLOW_PRIVATE", "1");
  startFederationQueue(work.signal);
  cook = await makeUser({ name: "Ada Cook" });

  // The other server: one person, "remote-cook", whose inbox keeps the Accepts it gets.
  const keys = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  remote = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  remote
    .setActorDispatcher("/users/{identifier}", async (ctx, identifier) =>
      identifier === "remote-cook"
        ? new Person({
            id: ctx.getActorUri(identifier),
            preferredUsername: identifier,
            name: "Remote Cook",
            inbox: ctx.getInboxUri(identifier),
            publicKey: (await ctx.getActorKeyPairs(identifier))[0]?.cryptographicKey,
          })
        : null,
    )
    .setKeyPairsDispatcher(() => [keys]);
  remote
    .setInboxListeners("/users/{identifier}/inbox")
    .on(Accept, (_ctx, accept) => void accepted.push(accept))
    .on(Create, (_ctx, activity) => void received.push(activity))
    .on(Update, (_ctx, activity) => void received.push(activity))
    .on(Delete, (_ctx, activity) => void received.push(activity));
  there = await serve((request) => remote.fetch(request, { contextData: undefined }));
}, 60_000);
afterAll(() => {
  work.abort();
  here?.close();
  there?.close();
});

const activityJson = { Accept: "application/activity+json" };

describe("federation: found, served, followed", () => {
  it("WebFinger finds @username@host; the actor is a Person with an inbox and a public key; a browser is sent to the profile", async () => {
    const host = new URL(here.origin).host;
    expect(handleOf(cook.username)).toBe(`@${cook.username}@${host}`);
    const finger = await fetch(`${here.origin}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${cook.username}@${host}`)}`);
    expect(finger.status).toBe(200);
    const jrd = (await finger.json()) as { subject: string; links: { rel: string; type?: string; href?: string }[] };
    expect(jrd.subject).toBe(`acct:${cook.username}@${host}`);
    const self = jrd.links.find((link) => link.rel === "self" && link.type === "application/activity+json");
    expect(self?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
    expect((await fetch(`${here.origin}/.well-known/webfinger?resource=acct:nobody-here@${host}`)).status).toBe(404);

    const actor = (await (await fetch(self!.href!, { headers: activityJson })).json()) as Record<string, unknown>;
    expect(actor).toMatchObject({ type: "Person", preferredUsername: cook.username, name: "Ada Cook", inbox: `${self!.href}/inbox` });
    expect(String((actor.publicKey as { publicKeyPem?: string }).publicKeyPem)).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const browser = await fetch(self!.href!, { headers: { Accept: "text/html" }, redirect: "manual" });
    expect([browser.status, browser.headers.get("location")]).toEqual([302, `${here.origin}/ReciPals/Account/Profile/${encodeURIComponent(cook.id)}`]);
  });

  it("NodeInfo says it is ReciPals speaking ActivityPub, with its counts", async () => {
    const links = (await (await fetch(`${here.origin}/.well-known/nodeinfo`)).json()) as { links: { href: string }[] };
    const info = (await (await fetch(links.links[0]!.href)).json()) as { software: { name: string }; protocols: string[]; usage: { users: { total: number } } };
    expect(info.software.name).toBe("recipals");
    expect(info.protocols).toEqual(["activitypub"]);
    expect(info.usage.users.total).toBeGreaterThanOrEqual(1);
  });

  it("a signed Follow from another server is kept and answered with a signed Accept; Undo ends it", async () => {
    const ctx = remote.createContext(new URL(there.origin), undefined);
    const target = await ctx.lookupObject(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
    expect(isActor(target)).toBe(true);
    const follow = new Follow({ id: new URL(`${there.origin}/follows/1`), actor: ctx.getActorUri("remote-cook"), object: target!.id });
    await ctx.sendActivity({ identifier: "remote-cook" }, target as Person, follow);

    const row = await until(
      () => db.selectFrom("remote_followers").selectAll().where("user_id", "=", cook.id).executeTakeFirst(),
      "the follow being kept",
    );
    expect(row).toMatchObject({ actor_id: `${there.origin}/users/remote-cook`, follow_id: `${there.origin}/follows/1` });
    const actor = await db.selectFrom("remote_actors").selectAll().where("id", "=", row.actor_id).executeTakeFirstOrThrow();
    expect(actor).toMatchObject({ handle: `remote-cook@127.0.0.1:${new URL(there.origin).port}`, name: "Remote Cook", inbox: `${there.origin}/users/remote-cook/inbox` });
    // The Accept arrives at the other server, signed by our person (the library checked it).
    const accept = await until(async () => accepted.find((candidate) => candidate.objectId?.href === follow.id?.href), "the Accept arriving");
    expect(accept.actorId?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}`);
    // Their followers collection lists them.
    const followers = (await (await fetch(`${here.origin}/ap/users/${encodeURIComponent(cook.id)}/followers`, { headers: activityJson })).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(1);

    await ctx.sendActivity({ identifier: "remote-cook" }, target as Person, new Undo({ id: new URL(`${there.origin}/follows/1/undo`), actor: ctx.getActorUri("remote-cook"), object: follow }));
    await until(async () => !(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).executeTakeFirst()), "the Undo ending the follow");
  });

  it("an unsigned or forged POST to an inbox is refused with 401 and nothing is kept", async () => {
    const inbox = `${here.origin}/ap/users/${encodeURIComponent(cook.id)}/inbox`;
    const body = JSON.stringify({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${there.origin}/follows/forged`,
      type: "Follow",
      actor: `${there.origin}/users/remote-cook`,
      object: `${here.origin}/ap/users/${encodeURIComponent(cook.id)}`,
    });
    const unsigned = await fetch(inbox, { method: "POST", headers: { "Content-Type": "application/activity+json" }, body });
    expect(unsigned.status).toBe(401);
    const forged = await fetch(inbox, {
      method: "POST",
      headers: { "Content-Type": "application/activity+json", Signature: `keyId="${there.origin}/users/remote-cook#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"`, Date: new Date().toUTCString() },
      body,
    });
    expect(forged.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", cook.id).execute()).toEqual([]);
  });
});

describe("federation: recipes travel to followers elsewhere", () => {
  it("a new recipe goes out as Create of a Note Mastodon can show, an edit as Update, a deletion as Delete", async () => {
    const author = await makeUser({ name: "Bo Baker" });
    const ctx = remote.createContext(new URL(there.origin), undefined);
    const target = (await ctx.lookupObject(`${here.origin}/ap/users/${encodeURIComponent(author.id)}`)) as Person;
    await ctx.sendActivity({ identifier: "remote-cook" }, target, new Follow({ id: new URL(`${there.origin}/follows/2`), actor: ctx.getActorUri("remote-cook"), object: target.id }));
    await until(() => db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", author.id).executeTakeFirst(), "the follow");

    const input = {
      name: "Rye & Caraway Loaf",
      description: "A dense <loaf> for cold days.",
      totalTime: "3h",
      serves: 8,
      tags: ["Bread"],
      sections: [{ id: "", title: "", ingredients: ["Rye flour (500g)", "Caraway (1 tbsp)"] }],
      steps: ["Mix everything.", "Bake for an hour."],
    };
    const created = await createRecipe({ actor: { id: author.id, role: "USER" }, recipeId: crypto.randomUUID(), input, photo: { kind: "keep" }, fallbackPhoto: "/images/recipe-placeholder.png" });
    if (!created.ok) throw new Error(created.message);
    const { recipeId, postId } = created.value;
    const noteId = `${here.origin}/ap/posts/${encodeURIComponent(postId)}`;
    const create = (await until(async () => received.find((activity) => activity instanceof Create && activity.objectId?.href === noteId), "the Create arriving")) as Create;
    const note = (await create.getObject()) as Note;
    expect(note).toBeInstanceOf(Note);
    // What Mastodon requires of a Note: who wrote it, to whom, when, what, and the photo.
    expect(note.attributionId?.href).toBe(`${here.origin}/ap/users/${encodeURIComponent(author.id)}`);
    expect(note.toIds.map((id) => id.href)).toEqual(["https://www.w3.org/ns/activitystreams#Public"]);
    expect(note.ccIds.map((id) => id.href)).toEqual([`${here.origin}/ap/users/${encodeURIComponent(author.id)}/followers`]);
    expect(note.published).not.toBeNull();
    const content = String(note.content);
    expect(content).toContain("<strong>Rye &#38; Caraway Loaf</strong>");
    expect(content).toContain("A dense &#60;loaf&#62; for cold days.");
    expect(content).toContain("<li>Rye flour (500g)</li><li>Caraway (1 tbsp)</li>");
    expect(content).toContain("<ol><li>Mix everything.</li><li>Bake for an hour.</li></ol>");
    expect(content).toContain(`${here.origin}/ReciPals/Recipes/${recipeId}`);
    const attachments: unknown[] = [];
    for await (const attachment of note.getAttachments()) attachments.push(attachment);
    const [photo] = attachments;
    expect(photo).toBeInstanceOf(Image);
    expect((photo as Image).url?.toString()).toBe(`${here.origin}/images/recipe-placeholder.png`);
    // The Note is there to fetch by its id too.
    const fetched = (await (await fetch(noteId, { headers: activityJson })).json()) as { type: string; id: string };
    expect(fetched).toMatchObject({ type: "Note", id: noteId });
    // Beside its HTML, the recipe as schema.org properties, in the Create as received (signed with
    // them) and in the Note fetched by its id (whose context names the schema: prefix).
    const recipeProperties = {
      "schema:recipeIngredient": ["Rye flour (500g)", "Caraway (1 tbsp)"],
      "schema:recipeInstructions": [
        { type: "schema:HowToStep", "schema:position": 1, "schema:text": "Mix everything." },
        { type: "schema:HowToStep", "schema:position": 2, "schema:text": "Bake for an hour." },
      ],
      "schema:recipeYield": "8",
      "schema:totalTime": "PT3H",
      "schema:keywords": "Bread",
    };
    const sent = (await create.toJsonLd()) as { object: Record<string, unknown>; proof?: unknown };
    expect(sent.proof).toBeDefined();
    expect(sent.object).toMatchObject({ type: "Note", ...recipeProperties });
    expect(fetched).toMatchObject(recipeProperties);
    expect((fetched as unknown as { "@context": unknown[] })["@context"]).toContainEqual({ schema: "http://schema.org/" });

    const updated = await updateRecipe({ actor: { id: author.id, role: "USER" }, recipeId, input: { ...input, name: "Rye Loaf" }, photo: { kind: "keep" } });
    expect(updated.ok).toBe(true);
    const update = (await until(async () => received.find((activity) => activity instanceof Update && activity.objectId?.href === noteId), "the Update arriving")) as Update;
    expect(String(((await update.getObject()) as Note).content)).toContain("<strong>Rye Loaf</strong>");

    expect((await deleteRecipe({ actor: { id: author.id, role: "USER" }, recipeId })).ok).toBe(true);
    const deletion = (await until(async () => received.find((activity) => activity instanceof Delete && activity.objectId?.href === noteId), "the Delete arriving")) as Delete;
    expect(await deletion.getObject()).toBeInstanceOf(Tombstone);
    expect((await fetch(noteId, { headers: activityJson })).status).toBe(404);
  });

  it("sends and queues nothing for an author nobody elsewhere follows", async () => {
    const loner = await makeUser();
    const before = received.length;
    const created = await createRecipe({
      actor: { id: loner.id, role: "USER" },
      recipeId: crypto.randomUUID(),
      input: { name: "Plain Toast", description: "", totalTime: "5min", serves: 1, tags: [], sections: [{ id: "", title: "", ingredients: ["Bread"] }], steps: ["Toast."] },
      photo: { kind: "keep" },
      fallbackPhoto: "/images/recipe-placeholder.png",
    });
    expect(created.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received.length).toBe(before);
    expect(await federationQueueDepth()).toBe(0);
  });
});

describe("federation: a blocked server", () => {
  it("an admin blocks a domain: its activities are refused with 403 and nothing is kept, its follows end, nothing is sent to it; unblocking lets it in again", async () => {
    const admin = { id: (await makeUser({ role: "ADMIN" })).id, role: "ADMIN" as const };
    const person = await makeUser();
    const ctx = remote.createContext(new URL(there.origin), undefined);
    const target = (await ctx.lookupObject(`${here.origin}/ap/users/${encodeURIComponent(person.id)}`)) as Person;
    const followOnce = (n: number) =>
      ctx.sendActivity({ identifier: "remote-cook" }, target, new Follow({ id: new URL(`${there.origin}/follows/block-${n}`), actor: ctx.getActorUri("remote-cook"), object: target.id }));
    await followOnce(1);
    await until(() => db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", person.id).executeTakeFirst(), "the follow");

    expect(await blockDomain({ actor: { id: person.id, role: "USER" }, domain: "127.0.0.1" })).toMatchObject({ ok: false, status: 403 });
    expect(await blockDomain({ actor: admin, domain: "not a domain!" })).toMatchObject({ ok: false, status: 400, message: FEDERATION_MESSAGES.badDomain });
    expect(await blockDomain({ actor: admin, domain: " https://127.0.0.1/whatever " })).toMatchObject({ ok: true, value: { domain: "127.0.0.1" } });
    expect(await blockDomain({ actor: admin, domain: "127.0.0.1" })).toMatchObject({ ok: false, status: 409 });
    // Its people's follows here ended with the block.
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", person.id).execute()).toEqual([]);
    // Its activities are refused before anything is read or kept.
    await expect(followOnce(2)).rejects.toThrow(/403/);
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", person.id).execute()).toEqual([]);
    // A recipe of this person goes nowhere.
    const before = received.length;
    const created = await createRecipe({
      actor: { id: person.id, role: "USER" },
      recipeId: crypto.randomUUID(),
      input: { name: "Quiet Soup", description: "", totalTime: "1h", serves: 2, tags: [], sections: [{ id: "", title: "", ingredients: ["Water"] }], steps: ["Boil."] },
      photo: { kind: "keep" },
      fallbackPhoto: "/images/recipe-placeholder.png",
    });
    expect(created.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(received.length).toBe(before);

    expect(await unblockDomain({ actor: admin, domain: "127.0.0.1" })).toMatchObject({ ok: true });
    await followOnce(3);
    await until(() => db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", person.id).executeTakeFirst(), "the follow after the unblock");
  });
});

describe("federation: the delivery queue", () => {
  // A database of its own: the app's queue (started above) works the shared one.
  let own: DB;
  beforeAll(async () => {
    own = openDatabase(":memory:");
    await migrateToLatest(own);
  });
  afterAll(() => closeDatabaseHandle(own));

  it("keeps a message a stopped worker had taken, and hands it out again when its lease runs out: a restart loses nothing", async () => {
    const stopped = new AbortController();
    const first = new DatabaseMessageQueue(own);
    let started = false;
    // The first server takes the message and stops mid-delivery (its handler never finishes).
    void first.listen(
      () => {
        started = true;
        return new Promise<void>(() => undefined);
      },
      { signal: stopped.signal },
    );
    await first.enqueue({ deliver: "to somewhere", n: 1 });
    await until(async () => started, "the first worker taking the message");
    stopped.abort();
    const kept = await own.selectFrom("federation_queue").select(["id", "taken_until"]).execute();
    expect(kept).toHaveLength(1);
    expect(kept[0]!.taken_until).toBeGreaterThan(Date.now());

    // After a restart, once the lease has run out, the next server delivers it, once.
    await own.updateTable("federation_queue").set({ taken_until: Date.now() - 1 }).execute();
    const delivered: unknown[] = [];
    const next = new AbortController();
    void new DatabaseMessageQueue(own).listen((message) => void delivered.push(message), { signal: next.signal });
    await until(async () => delivered.length === 1 && (await own.selectFrom("federation_queue").select("id").execute()).length === 0, "the second server delivering it");
    next.abort();
    expect(delivered).toEqual([{ deliver: "to somewhere", n: 1 }]);
  });

  it("waits out a message's delay (a retry's backoff)", async () => {
    const queue = new DatabaseMessageQueue(own);
    const { Temporal } = await import("@js-temporal/polyfill");
    await queue.enqueue({ later: true }, { delay: Temporal.Duration.from({ minutes: 10 }) });
    const row = await own.selectFrom("federation_queue").select("run_at").where("message", "=", JSON.stringify({ later: true })).executeTakeFirstOrThrow();
    expect(row.run_at).toBeGreaterThan(Date.now() + 9 * 60 * 1000);
    await own.deleteFrom("federation_queue").execute();
  });
});

describe("federation: a flood from one server", () => {
  it("past its activities for the minute, a server gets 429 with Retry-After and nothing is kept", async () => {
    const person = await makeUser();
    // The other server has delivered its minute's worth already.
    for (let i = 0; i < INBOX_LIMIT.limit; i += 1) {
      const full = await takeRateLimited(INBOX_LIMIT, "127.0.0.1").then(
        () => false,
        () => true,
      );
      if (full) break;
    }
    const ctx = remote.createContext(new URL(there.origin), undefined);
    const target = (await ctx.lookupObject(`${here.origin}/ap/users/${encodeURIComponent(person.id)}`)) as Person;
    await expect(
      ctx.sendActivity({ identifier: "remote-cook" }, target, new Follow({ id: new URL(`${there.origin}/follows/flood`), actor: ctx.getActorUri("remote-cook"), object: target.id })),
    ).rejects.toThrow(/429/);
    expect(await db.selectFrom("remote_followers").select("actor_id").where("user_id", "=", person.id).execute()).toEqual([]);
    await db.deleteFrom("rate_events").where("bucket", "=", INBOX_LIMIT.bucket).execute();
  });
});

describe("federation: what the queue and the store do on their own", () => {
  let own: DB;
  beforeAll(async () => {
    own = openDatabase(":memory:");
    await migrateToLatest(own);
  });
  afterAll(() => closeDatabaseHandle(own));

  it("drops a delivery to a server blocked since it was queued, and lets a worker that outlived its lease change nothing", async () => {
    await own.insertInto("blocked_domains").values({ domain: "blocked.example", blocked_by: null, created_at: Date.now() }).execute();
    const queue = new DatabaseMessageQueue(own);
    await queue.enqueue({ type: "outbox", inbox: "https://sub.blocked.example/inbox", n: 1 });
    await queue.enqueue({ type: "outbox", inbox: "https://fine.example/inbox", n: 2 });
    const handled: unknown[] = [];
    const stop = new AbortController();
    void queue.listen((message) => void handled.push(message), { signal: stop.signal });
    await until(async () => (await own.selectFrom("federation_queue").select("id").execute()).length === 0, "the queue emptying");
    stop.abort();
    expect(handled).toEqual([{ type: "outbox", inbox: "https://fine.example/inbox", n: 2 }]);

    // A worker whose lease ran out and whose message another took: its late failure changes nothing.
    const slow = new AbortController();
    let release: () => void = () => undefined;
    void new DatabaseMessageQueue(own).listen(() => new Promise<void>((_resolve, reject) => (release = () => reject(new Error("late")))), { signal: slow.signal });
    await queue.enqueue({ type: "inbox", n: 3 });
    await until(async () => (await own.selectFrom("federation_queue").select("taken_until").executeTakeFirst())?.taken_until, "the slow worker taking it");
    slow.abort();
    await own.updateTable("federation_queue").set({ taken_until: 1 }).execute();
    const retaken = await own.updateTable("federation_queue").set({ taken_until: Date.now() + 60_000 }).where("taken_until", "=", 1).executeTakeFirst();
    expect(Number(retaken.numUpdatedRows)).toBe(1);
    const held = await own.selectFrom("federation_queue").select(["taken_until", "run_at"]).executeTakeFirstOrThrow();
    release();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await own.selectFrom("federation_queue").select(["taken_until", "run_at"]).executeTakeFirstOrThrow()).toEqual(held);
    await own.deleteFrom("federation_queue").execute();
  });

  it("sweeps the store's expired entries", async () => {
    const store = new DatabaseKvStore(own);
    const { Temporal } = await import("@js-temporal/polyfill");
    await store.set(["old"], { v: 1 }, { ttl: Temporal.Duration.from({ milliseconds: 1 }) });
    await store.set(["kept"], { v: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sweepExpiredEntries(own);
    expect((await own.selectFrom("federation_kv").select("key").execute()).map((row) => row.key)).toEqual([JSON.stringify(["kept"])]);
    expect(await store.get(["kept"])).toEqual({ v: 2 });
  });

  it("refuses an inbox POST without an HTTP Signature before reading it", async () => {
    const person = await makeUser();
    const answer = await fetch(`${here.origin}/ap/users/${encodeURIComponent(person.id)}/inbox`, {
      method: "POST",
      headers: { "Content-Type": "application/activity+json" },
      body: JSON.stringify({ "@context": "https://www.w3.org/ns/activitystreams", type: "Follow", actor: `${there.origin}/users/remote-cook`, object: `${here.origin}/ap/users/${person.id}`, signature: { type: "RsaSignature2017" } }),
    });
    expect([answer.status, await answer.text()]).toEqual([401, "Activities must carry an HTTP Signature."]);
  });
});
