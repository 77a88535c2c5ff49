import { z } from "zod";

import { isAdmin } from "~/lib/permissions";

import { CacheScope, changing } from "../cache/scopes.server";
import { db, type DB } from "../db/connection.server";
import { blockedDomains, domainOf, storeDomainBlock } from "../federation/domain-blocks.server";
import { findRemotePerson, parseRemoteHandle, replyToRemotePost, setRemoteBlocked, setRemoteFollowing, setRemotePostLiked } from "../federation/remote-actions.server";
import { remoteBlockOf, remoteFollowState, type RemotePerson } from "../federation/remote-store.server";
import { CommentSchema } from "../validation/comment-schema.server";
import { done, refusal, type Actor, type Outcome } from "./outcome-service.server";

// What an admin decides about other servers (docs/federation.md, "Safety"): blocking a whole
// domain — nothing from it is accepted or shown, nothing is sent to it — and lifting the block.

export const FEDERATION_MESSAGES = {
  adminsOnly: "Only admins can block or unblock servers.",
  badDomain: "Enter a domain name such as social.example.",
  alreadyBlocked: "That domain is blocked already.",
  notBlocked: "That domain is not blocked.",
  unknownPerson: "That person could not be found. Search for their handle (@name@server) first.",
  badIntent: "Unknown action.",
  unknownPost: "That post is not here any more.",
  blockedPerson: "You blocked this person. Unblock them to follow them.",
} as const;

// People on other servers (docs/federation.md): a search for @name@host asks their server who they
// are; Follow sends a Follow, which completes when their server accepts; Block and Mute work on
// them as on people here.

/** How someone here stands with a person on another server. */
export type RemoteStanding = { follow: "none" | "pending" | "following"; blocked: boolean; muted: boolean };

/** A person on another server as the search shows them, with how the viewer stands with them. */
export type FoundRemotePerson = RemotePerson & RemoteStanding;

async function standingOf(userId: string, actorId: string, database: DB): Promise<RemoteStanding> {
  const [follow, block] = await Promise.all([remoteFollowState(userId, actorId, database), remoteBlockOf(userId, actorId, database)]);
  return { follow, ...block };
}

/** The person `q` names on another server (`@name@host`), for a signed-in searcher; null otherwise. */
export async function lookUpRemotePerson({ actor, q }: { actor: Actor | null; q: string }, database: DB = db): Promise<FoundRemotePerson | null> {
  if (!actor || !parseRemoteHandle(q)) return null;
  const person = await findRemotePerson(q, database);
  return person ? { ...person, ...(await standingOf(actor.id, person.id, database)) } : null;
}

const RemotePersonSchema = z.object({
  actorId: z.string().url(FEDERATION_MESSAGES.unknownPerson).max(2000, FEDERATION_MESSAGES.unknownPerson),
  intent: z.enum(["follow", "unfollow", "block", "unblock", "mute", "unmute"], { message: FEDERATION_MESSAGES.badIntent }),
});

/**
 * The actor follows, blocks or mutes a person on another server they found by a search (or lifts
 * it). A block ends follows both ways; someone blocked cannot be followed until unblocked.
 */
export async function actOnRemotePerson(
  { actor, actorId, intent }: { actor: Actor; actorId: unknown; intent: unknown },
  database: DB = db,
): Promise<Outcome<RemoteStanding>> {
  const parsed = RemotePersonSchema.safeParse({ actorId, intent });
  if (!parsed.success) return refusal(400, parsed.error.issues[0]?.message ?? FEDERATION_MESSAGES.badIntent);
  const { actorId: id, intent: asked } = parsed.data;
  let changed: "changed" | "unchanged" | "unknown";
  if (asked === "follow" || asked === "unfollow") {
    if (asked === "follow" && (await remoteBlockOf(actor.id, id, database)).blocked) return refusal(409, FEDERATION_MESSAGES.blockedPerson);
    changed = await setRemoteFollowing({ userId: actor.id, actorId: id, following: asked === "follow" }, database);
  } else {
    const kind = asked === "block" || asked === "unblock" ? "block" : "mute";
    changed = await setRemoteBlocked({ userId: actor.id, actorId: id, kind, on: asked === kind }, database);
  }
  if (changed === "unknown") return refusal(404, FEDERATION_MESSAGES.unknownPerson);
  return done(await standingOf(actor.id, id, database));
}

const DomainSchema = z
  .string({ message: FEDERATION_MESSAGES.badDomain })
  .trim()
  .toLowerCase()
  .transform((value) => value.replace(/^https?:\/\//, "").replace(/\/.*$/, ""))
  .pipe(z.string().max(253, FEDERATION_MESSAGES.badDomain).regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?::\d{1,5})?$/, FEDERATION_MESSAGES.badDomain))
  .transform(domainOf);

/** The blocked domains, for the admin page. */
export async function listBlockedDomains({ actor }: { actor: Actor }, database: DB = db): Promise<Outcome<{ domain: string; created_at: number }[]>> {
  if (!isAdmin(actor)) return refusal(403, FEDERATION_MESSAGES.adminsOnly);
  return done(await blockedDomains(database));
}

/**
 * Blocks a domain and its subdomains. Its people's follows of people here end at once (so nothing
 * more is sent to them), in the same transaction.
 */
export async function blockDomain({ actor, domain }: { actor: Actor; domain: unknown }, database: DB = db): Promise<Outcome<{ domain: string }>> {
  if (!isAdmin(actor)) return refusal(403, FEDERATION_MESSAGES.adminsOnly);
  const parsed = DomainSchema.safeParse(domain);
  if (!parsed.success) return refusal(400, FEDERATION_MESSAGES.badDomain, { errors: { domain: FEDERATION_MESSAGES.badDomain } });
  const name = parsed.data;
  // Their likes and replies leave every page at once: every kept page is renewed.
  const added = await changing([CacheScope.everything], (trx) => storeDomainBlock({ domain: name, blockedBy: actor.id }, trx), database);
  if (!added) return refusal(409, FEDERATION_MESSAGES.alreadyBlocked, { errors: { domain: FEDERATION_MESSAGES.alreadyBlocked } });
  return done({ domain: name });
}

/** Lifts a domain's block (follows it ended stay ended). */
export async function unblockDomain({ actor, domain }: { actor: Actor; domain: unknown }, database: DB = db): Promise<Outcome<{ domain: string }>> {
  if (!isAdmin(actor)) return refusal(403, FEDERATION_MESSAGES.adminsOnly);
  const parsed = DomainSchema.safeParse(domain);
  if (!parsed.success) return refusal(400, FEDERATION_MESSAGES.badDomain);
  const removed = await database.deleteFrom("blocked_domains").where("domain", "=", parsed.data).executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) return refusal(404, FEDERATION_MESSAGES.notBlocked);
  return done({ domain: parsed.data });
}

const RemotePostSchema = z.discriminatedUnion("intent", [
  z.object({ postId: z.string().url(FEDERATION_MESSAGES.unknownPost).max(2000, FEDERATION_MESSAGES.unknownPost), intent: z.enum(["like", "unlike"]) }),
  z.object({ postId: z.string().url(FEDERATION_MESSAGES.unknownPost).max(2000, FEDERATION_MESSAGES.unknownPost), intent: z.literal("reply"), text: CommentSchema.shape.text }),
]);

/**
 * The actor likes, stops liking or replies to a post from another server on their Home; its
 * author's server is told (a Like, an Undo of it, or a Note answering the post).
 */
export async function actOnRemotePost(
  { actor, postId, intent, text }: { actor: Actor; postId: unknown; intent: unknown; text?: unknown },
  database: DB = db,
): Promise<Outcome<{ liked: boolean } | { replyId: string }>> {
  const parsed = RemotePostSchema.safeParse({ postId, intent, text });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message = issue?.path[0] === "intent" ? FEDERATION_MESSAGES.badIntent : (issue?.message ?? FEDERATION_MESSAGES.badIntent);
    return refusal(400, message, issue?.path[0] === "text" ? { errors: { text: message } } : undefined);
  }
  const asked = parsed.data;
  if (asked.intent === "reply") {
    const reply = await replyToRemotePost({ userId: actor.id, postId: asked.postId, text: asked.text }, database);
    return reply ? done({ replyId: reply.id }) : refusal(404, FEDERATION_MESSAGES.unknownPost);
  }
  const liked = asked.intent === "like";
  const changed = await setRemotePostLiked({ userId: actor.id, postId: asked.postId, liked }, database);
  if (changed === "unknown") return refusal(404, FEDERATION_MESSAGES.unknownPost);
  return done({ liked });
}
