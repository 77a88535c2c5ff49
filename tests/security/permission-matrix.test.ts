import { describe, expect, it } from "vitest";

import { db } from "~/server/db/connection.server";
import { addRecipeToList } from "~/server/services/shopping-service.server";
import { fileReport } from "~/server/services/moderation-service.server";
import { commitSignupDraft } from "~/server/auth/session.server";

import { formRequest, uniqueUsername } from "../support/app";
import {
  ACTORS,
  diff,
  discoverRoutes,
  emptyTables,
  jsonRequest,
  makeWorld,
  outcomeOf,
  ORIGIN,
  PASSWORD,
  quickUser,
  snapshot,
  type Actor,
  type Outcome,
  type Snapshot,
  type Table,
  type World,
  useScratchUploads,
} from "../support/server/world";

// The permission matrix (docs/rules.md#who-may-do-what): every route module that exports an `action` —
// found by reading app/routes, so a new one cannot be forgotten — is called as a visitor,
// as another USER, as the owner and as an ADMIN. Refused calls must answer the expected status
// and leave every table exactly as it was; allowed calls must change only what they should.
//
// Pages refuse a visitor by sending them to Login (302, docs/rules.md#pages-that-need-sign-in); the JSON API answers
// 401. A wrong USER gets 403 (or an honest 400/404 where the request makes no sense for them).

type Fields = Record<string, string | string[]>;
interface Call {
  method?: string;
  /** Concrete URL path (for the Request). */
  url: string;
  /** Values of the route's params, in URL order. */
  params?: string[];
  form?: Fields;
  json?: unknown;
  /** Replaces the actor's cookie (e.g. to add a sign-up draft). */
  cookie?: string;
}

type Effect = (w: World, actor: Actor, outcome: Outcome, changes: ReturnType<typeof diff>) => Promise<void> | void;

type Expectation =
  /** Refused: this status (one of them), optionally this redirect, and nothing changed. */
  | { refused: number | number[]; location?: RegExp }
  /** Allowed: this status, only tables in `touches` changed, and `effect` holds. */
  | { ok: number | number[]; location?: RegExp; touches: readonly Table[]; effect?: Effect }
  /** The contract leaves it open: either refused with nothing changed, or allowed within `touches` and `effect`. */
  | { either: true; touches: readonly Table[]; effect?: Effect };

interface Probe {
  name: string;
  call: (w: World, actor: Actor) => Call | Promise<Call>;
  expect: Record<Actor, Expectation>;
  /** Tables a refusal may still write (a failed sign-in is recorded for throttling). */
  refusalMayWrite?: readonly Table[];
}

interface Entry {
  probes: Probe[];
}

const LOGIN = /^\/ReciPals\/Account\/Login(\?|$)/;
const toLogin = { refused: 302, location: LOGIN } as const;
const unauthorized = { refused: 401 } as const;
const forbidden = { refused: 403 } as const;
const same = (expectation: Expectation): Record<Actor, Expectation> => ({ anon: expectation, other: expectation, owner: expectation, admin: expectation });
const signedIn = (expectation: Expectation, anon: Expectation = toLogin): Record<Actor, Expectation> => ({ anon, other: expectation, owner: expectation, admin: expectation });

const idOf = (w: World, actor: Actor) => (actor === "anon" ? "" : w.user(actor).id);

async function rowsOf(table: Table, column: string, value: string) {
  return db.selectFrom(table).selectAll().where(column as any, "=", value).execute() as Promise<Record<string, unknown>[]>;
}

/** Every row an allowed interaction added or removed belongs to the actor (a like, save, follow or comment of theirs). */
const onlyActorsRows =
  (column: string): Effect =>
  (w, actor, _outcome, changes) => {
    const id = idOf(w, actor);
    for (const change of changes) {
      for (const row of [...change.added, ...change.removed]) expect((JSON.parse(row) as Record<string, unknown>)[column], `${change.table} row ${row}`).toBe(id);
    }
  };

/**
 * What an allowed write may change beside the tables its probe names: the notifications a like,
 * comment, follow or save writes or withdraws (docs/rules.md#notifications), and what deleting a
 * user, recipe or post takes with it (their notifications; the shopping lists holding the recipe,
 * or the user's own). Their own rules are tested in tests/unit/notifications.test.ts and
 * shopping-list.test.ts; effects see only the named tables.
 */
const ALSO_CHANGES: Partial<Record<Table, readonly Table[]>> = {
  likes: ["notifications"],
  comments: ["notifications"],
  follows: ["notifications"],
  saved_recipes: ["notifications"],
  posts: ["notifications"],
  cooks: ["notifications"],
  recipes: ["notifications", "shopping_recipes", "shopping_items", "cooks"],
  users: ["notifications", "shopping_recipes", "shopping_items", "cooks"],
};

const withSideTables = (touches: readonly Table[]): Table[] => [...new Set([...touches, ...touches.flatMap((table) => ALSO_CHANGES[table] ?? [])])];

/** The actor's one new block or mute of the owner, and no other row of its table (follows a block ends are checked by the service tests). */
const relationOfOwner =
  (table: "blocks" | "mutes"): Effect =>
  (w, actor, _outcome, changes) => {
    const [by, of] = table === "blocks" ? ["blocker_id", "blocked_id"] : ["muter_id", "muted_id"];
    const change = changes.find((c) => c.table === table);
    expect(change?.removed ?? []).toEqual([]);
    expect((change?.added ?? []).map((row) => JSON.parse(row) as Record<string, unknown>).map((row) => [row[by], row[of]])).toEqual([[idOf(w, actor), w.owner.id]]);
  };

/** `other` reports the owner's post, so an admin has something in the queue to act on. */
async function reportedPost(w: World): Promise<void> {
  const filed = await fileReport({ actor: w.other, kind: "post", targetId: w.postId, reason: "spam", text: "" });
  if (!filed.ok) throw new Error(filed.message);
}

/** One of the owner's notifications (the world's like, comment, save and follow by `other` wrote some). */
async function ownersNotification(w: World): Promise<string> {
  const row = await db.selectFrom("notifications").select("id").where("user_id", "=", w.owner.id).executeTakeFirst();
  if (!row) throw new Error("The world gave the owner no notification");
  return row.id;
}

/** An item on the owner's shopping list (the owner's recipe, added for the probe). */
async function ownersShoppingItem(w: World): Promise<string> {
  const added = await addRecipeToList({ actor: w.owner, recipeId: w.recipeId });
  if (!added.ok) throw new Error(added.message);
  const row = await db.selectFrom("shopping_items").select("id").where("user_id", "=", w.owner.id).executeTakeFirstOrThrow();
  return row.id;
}

// ---------------------------------------------------------------------------------------------
// Page actions (form posts)

const RECIPE_FORM = (name: string): Fields => ({
  name,
  description: "Changed by a permission probe",
  sectionId: "",
  sectionTitle: "Main",
  "ingredient-0": ["Salt (1 tsp)"],
  step: ["Stir."],
  totalTime: "10min",
  serves: "2",
  tags: "Quick",
});

const PAGE_MATRIX: Record<string, Entry> = {
  "/ReciPals/Account/Admin/Recipes/:/Post": {
    probes: [
      {
        name: "remove another user's comment",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "remove-comment", commentId: w.otherCommentId, confirm: "yes" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: {
            ok: 302,
            touches: ["comments"],
            effect: async (w) => expect(await rowsOf("comments", "id", w.otherCommentId)).toEqual([]),
          },
        },
      },
    ],
  },
  "/ReciPals/Account/Admin/Recipes/:/(index)": {
    probes: [
      {
        name: "replace a recipe's ingredients",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "save-ingredients", text: "Probe:\nPepper\n" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: {
            ok: 302,
            touches: ["ingredient_sections", "ingredient_lines"],
            effect: async (w) => expect((await rowsOf("ingredient_sections", "recipe_id", w.recipeId)).map((r) => r.title)).toEqual(["Probe"]),
          },
        },
      },
      {
        name: "replace a recipe's steps",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "save-instructions", text: "One\nTwo\nThree" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: { ok: 302, touches: ["steps"], effect: async (w) => expect(await rowsOf("steps", "recipe_id", w.recipeId)).toHaveLength(3) },
        },
      },
    ],
  },
  "/ReciPals/Account/Admin/Recipes/:": {
    probes: [
      {
        name: "delete a recipe and its post",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "delete", confirm: "yes" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: {
            ok: 302,
            touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"],
            effect: async (w) => {
              expect(await rowsOf("recipes", "id", w.recipeId)).toEqual([]);
              expect(await rowsOf("posts", "id", w.postId)).toEqual([]);
            },
          },
        },
      },
    ],
  },
  "/ReciPals/Account/Admin/Users/:": {
    probes: [
      {
        // Only to a confirmed address: the owner has none (409 for an ADMIN), nothing written.
        name: "send the owner a password reset",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "password-reset" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { refused: 409 } },
      },
      {
        name: "make the owner an ADMIN",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "save", role: "ADMIN" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: { ok: 302, touches: ["users"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.role).toBe("ADMIN") },
        },
      },
      {
        // docs/rules.md#suspension: the owner's sessions end with it.
        name: "suspend the owner",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "suspend", why: "Probe" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: { ok: 302, touches: ["users", "sessions", "moderation_log"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.suspended_at).toBeTruthy() },
        },
      },
      {
        name: "unsuspend the owner, who is not suspended",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "unsuspend" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { refused: 409 } },
      },
      {
        name: "delete the owner",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "delete", confirm: "yes" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: {
            ok: 302,
            // The user's own rows go; their recipes stay (SPEC: deleting a user keeps their content).
            touches: ["users", "user_tags", "follows", "likes", "saved_recipes", "sessions", "comments", "recipes", "posts"],
            effect: async (w) => {
              expect(await rowsOf("users", "id", w.owner.id)).toEqual([]);
              expect(await rowsOf("sessions", "user_id", w.owner.id)).toEqual([]);
            },
          },
        },
      },
    ],
  },
  "/ReciPals/Account/Admin/Users": {
    probes: [
      {
        name: "add a placeholder user",
        call: () => ({ url: "/x", form: { intent: "add-user" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { ok: 201, touches: ["users"] } },
      },
    ],
  },
  "/ReciPals/Account/Follow/:": {
    probes: [
      {
        name: "follow the owner",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "follow" } }),
        expect: {
          anon: toLogin,
          // `other` already follows the owner: following again changes nothing.
          other: { ok: 302, touches: [] },
          owner: { refused: 400 },
          admin: { ok: 302, touches: ["follows"], effect: onlyActorsRows("follower_id") },
        },
      },
      {
        name: "unfollow the owner",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "unfollow" } }),
        expect: {
          anon: toLogin,
          other: { ok: 302, touches: ["follows"], effect: onlyActorsRows("follower_id") },
          owner: { refused: 400 },
          admin: { ok: 302, touches: [] },
        },
      },
      {
        name: "remove `other` from the actor's followers",
        call: (w) => ({ url: "/x", params: [w.other.id], form: { intent: "remove" } }),
        expect: {
          anon: toLogin,
          other: { refused: 400 },
          // Only the owner has `other` as a follower: for anyone else it is a no-op on their own list.
          owner: { ok: 302, touches: ["follows"], effect: onlyActorsRows("followee_id") },
          admin: { ok: 302, touches: [] },
        },
      },
    ],
  },
  "/ReciPals/Account/Delete": {
    probes: [
      {
        // Only ever one's own account: the actor's own password deletes the actor (the world's `other` and owner are USERs).
        // An administrator may leave while another one stays (the last one is refused: tests/unit/account.test.ts).
        name: "delete one's own account with one's password",
        call: async (_w, actor) => {
          if (actor === "admin") await quickUser({ role: "ADMIN", name: "Another Admin" });
          return { url: "/x", form: { password: PASSWORD, confirm: "yes" } };
        },
        expect: {
          anon: toLogin,
          other: { ok: 302, location: /\/Account\/Delete\?done=1$/, touches: ["users", "likes", "comments", "saved_recipes", "follows", "sessions", "notifications"], effect: async (w) => expect(await rowsOf("users", "id", w.other.id)).toEqual([]) },
          owner: {
            ok: 302,
            touches: ["users", "recipes", "posts", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "likes", "comments", "saved_recipes", "follows", "sessions", "notifications"],
            effect: async (w) => expect(await rowsOf("recipes", "id", w.recipeId)).toEqual([]),
          },
          admin: { ok: 302, touches: ["users", "sessions"] },
        },
      },
      {
        name: "with a wrong password",
        call: () => ({ url: "/x", form: { password: "not the password", confirm: "yes" } }),
        // A wrong password counts as a failed sign-in (docs/rules.md#own-account), and nothing else changes.
        refusalMayWrite: ["sign_in_failures"],
        expect: { anon: toLogin, other: { refused: 400 }, owner: { refused: 400 }, admin: { refused: 400 } },
      },
    ],
  },
  "/ReciPals/Report": {
    probes: [
      {
        name: "report the owner's post",
        call: (w) => ({ url: `/ReciPals/Report?kind=post&id=${w.postId}`, form: { reason: "spam", text: "Probe" } }),
        expect: {
          anon: toLogin,
          other: { ok: 200, touches: ["reports"], effect: onlyActorsRows("reporter_id") },
          // One's own post is not there to report.
          owner: { refused: 404 },
          admin: { ok: 200, touches: ["reports"], effect: onlyActorsRows("reporter_id") },
        },
      },
      {
        name: "report without a reason",
        call: (w) => ({ url: `/ReciPals/Report?kind=post&id=${w.postId}`, form: { text: "Probe" } }),
        expect: { anon: toLogin, other: { refused: 400 }, owner: { refused: 404 }, admin: { refused: 400 } },
      },
    ],
  },
  "/ReciPals/Account/Admin/Reports": {
    probes: [
      {
        name: "dismiss the reports of the owner's post",
        call: async (w) => {
          await reportedPost(w);
          return { url: "/x", form: { intent: "dismiss", kind: "post", targetId: w.postId, why: "Probe" } };
        },
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { ok: 302, touches: ["reports", "moderation_log", "notifications"] } },
      },
      {
        name: "remove the owner's reported post",
        call: async (w) => {
          await reportedPost(w);
          return { url: "/x", form: { intent: "remove", kind: "post", targetId: w.postId } };
        },
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: forbidden,
          admin: { ok: 302, touches: ["reports", "moderation_log", "notifications", "recipes", "posts", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "likes", "comments", "saved_recipes"] },
        },
      },
    ],
  },
  "/ReciPals/Account/Admin/Federation": {
    probes: [
      {
        name: "block a domain",
        call: () => ({ url: "/x", form: { intent: "block", domain: "probe.example" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { ok: 302, location: /\/Admin\/Federation\?blocked=probe\.example$/, touches: ["blocked_domains"] } },
      },
      {
        name: "block something that is not a domain",
        call: () => ({ url: "/x", form: { intent: "block", domain: "not a domain!" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { refused: 400 } },
      },
      {
        name: "unblock a domain that is not blocked",
        call: () => ({ url: "/x", form: { intent: "unblock", domain: "probe.example" } }),
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { refused: 404 } },
      },
    ],
  },
  // Following, blocking or muting someone on another server (docs/federation.md): nobody elsewhere
  // is known to this server: 404 for everyone signed in, nothing written or sent.
  "/ReciPals/Account/RemotePeople": {
    probes: [
      {
        name: "follow a person on another server",
        call: () => ({ url: "/x", form: { intent: "follow", actor: "https://elsewhere.example/users/x" } }),
        expect: { anon: toLogin, other: { refused: 404 }, owner: { refused: 404 }, admin: { refused: 404 } },
      },
      {
        name: "block a person on another server",
        call: () => ({ url: "/x", form: { intent: "block", actor: "https://elsewhere.example/users/x" } }),
        expect: { anon: toLogin, other: { refused: 404 }, owner: { refused: 404 }, admin: { refused: 404 } },
      },
      {
        name: "a follow with an unknown intent",
        call: () => ({ url: "/x", form: { intent: "befriend", actor: "https://elsewhere.example/users/x" } }),
        expect: { anon: toLogin, other: { refused: 400 }, owner: { refused: 400 }, admin: { refused: 400 } },
      },
    ],
  },
  // Liking or answering a post from another server: none is kept here (the server does not federate): 404.
  "/ReciPals/Account/RemotePosts": {
    probes: [
      {
        name: "like a post from another server",
        call: () => ({ url: "/x", form: { intent: "like", post: "https://elsewhere.example/notes/1" } }),
        expect: { anon: toLogin, other: { refused: 404 }, owner: { refused: 404 }, admin: { refused: 404 } },
      },
      {
        name: "reply to a post from another server",
        call: () => ({ url: "/x", form: { intent: "reply", post: "https://elsewhere.example/notes/1", text: "Hello" } }),
        expect: { anon: toLogin, other: { refused: 404 }, owner: { refused: 404 }, admin: { refused: 404 } },
      },
      {
        name: "an empty reply",
        call: () => ({ url: "/x", form: { intent: "reply", post: "https://elsewhere.example/notes/1", text: " " } }),
        expect: { anon: toLogin, other: { refused: 400 }, owner: { refused: 400 }, admin: { refused: 400 } },
      },
    ],
  },
  // ActivityPub inboxes (docs/federation.md): this server does not federate (no PUBLIC_URL), so
  // every address there is a 404 for everyone; tests/unit/federation.test.ts covers them federating.
  "/ap/*": {
    probes: [
      {
        name: "a Follow posted to the shared inbox",
        call: (w) => ({ url: "/ap/inbox", params: ["inbox"], json: { type: "Follow", actor: "https://elsewhere.example/users/x", object: `/ap/users/${w.owner.id}` } }),
        expect: same({ refused: 404 }),
      },
    ],
  },
  "/ReciPals/Account/People/:": {
    probes: [
      {
        // `other` follows the owner: the block ends that follow (and its notification) too.
        name: "block the owner, confirmed",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "block", confirm: "yes", returnTo: "/ReciPals/Home" } }),
        expect: {
          anon: toLogin,
          other: { ok: 302, location: /^\/ReciPals\/Home$/, touches: ["blocks", "follows"], effect: relationOfOwner("blocks") },
          owner: { refused: 400 },
          admin: { ok: 302, touches: ["blocks"], effect: relationOfOwner("blocks") },
        },
      },
      {
        name: "block the owner without confirming: the question, nothing changed",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "block" } }),
        expect: signedIn({ ok: 302, location: /\/Account\/People\/[^/?]+\?intent=block&/, touches: [] }),
      },
      {
        name: "mute the owner",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "mute", returnTo: "https://evil.example/" } }),
        expect: {
          anon: toLogin,
          // A return address on another site is not followed: back to the profile.
          other: { ok: 302, location: /^\/ReciPals\/Account\/Profile\/[^/]+$/, touches: ["mutes"], effect: relationOfOwner("mutes") },
          owner: { refused: 400 },
          admin: { ok: 302, touches: ["mutes"], effect: relationOfOwner("mutes") },
        },
      },
      {
        name: "unblock and unmute someone never blocked nor muted",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "unblock" } }),
        expect: { anon: toLogin, other: { ok: 302, touches: [] }, owner: { refused: 400 }, admin: { ok: 302, touches: [] } },
      },
      {
        name: "an unknown intent",
        call: (w) => ({ url: "/x", params: [w.owner.id], form: { intent: "befriend" } }),
        expect: signedIn({ refused: 400 }),
      },
    ],
  },
  "/ReciPals/Account/Login": {
    probes: [
      {
        name: "sign in as the owner with the right password",
        call: (w) => ({ url: "/ReciPals/Account/Login", form: { username: w.owner.username, password: PASSWORD, redirectTo: "/ReciPals/Home" } }),
        expect: same({
          ok: 302,
          location: /^\/ReciPals\/Home$/,
          touches: ["sessions", "sign_in_failures"],
          effect: (w, _a, outcome, changes) => {
            expect(outcome.headers.get("Set-Cookie")).toMatch(/recipals_session=/);
            const added = changes.find((c) => c.table === "sessions")?.added ?? [];
            expect(added.map((row) => JSON.parse(row).user_id)).toEqual([w.owner.id]);
          },
        }),
      },
      {
        name: "sign in as the owner with a wrong password",
        call: (w) => ({ url: "/ReciPals/Account/Login", form: { username: w.owner.username, password: "wrong password" } }),
        expect: same({ refused: 401 }),
        refusalMayWrite: ["sign_in_failures"],
      },
    ],
  },
  "/ReciPals/Account/Forgot": {
    probes: [
      {
        // The owner has no confirmed address: the same answer, nothing written, no mail.
        name: "ask for a reset link for the owner",
        call: (w) => ({ url: "/x", form: { login: w.owner.username } }),
        expect: same({ ok: 200, touches: [] }),
      },
    ],
  },
  "/ReciPals/Account/Reset/:": {
    probes: [
      {
        name: "choose a new password with a token no link had",
        call: () => ({ url: "/x", params: ["no-link-ever-had-this-token-0000"], form: { password: "pw-new-1", verifyPassword: "pw-new-1" } }),
        expect: same({ refused: 400 }),
      },
    ],
  },
  "/ReciPals/Account/Verify/:": {
    probes: [
      {
        name: "confirm an address with a token no link had",
        call: () => ({ url: "/x", params: ["no-link-ever-had-this-token-0000"], form: {} }),
        expect: same({ refused: 400 }),
      },
    ],
  },
  "/ReciPals/Account/Logout": {
    probes: [
      {
        name: "sign out",
        call: () => ({ url: "/x", form: {} }),
        expect: {
          anon: { ok: 302, touches: [] },
          // Only the caller's own session ends.
          other: { ok: 302, touches: ["sessions"], effect: onlyActorsRows("user_id") },
          owner: { ok: 302, touches: ["sessions"], effect: onlyActorsRows("user_id") },
          admin: { ok: 302, touches: ["sessions"], effect: onlyActorsRows("user_id") },
        },
      },
    ],
  },
  "/ReciPals/Account/Profile/:/Edit": {
    probes: [
      {
        name: "edit the owner's profile",
        call: (w) => ({
          url: "/x",
          params: [w.owner.id],
          form: { name: "Renamed Owner", username: w.owner.username, password: "", role: "USER", bio: "Probe bio", adminPassword: "" },
        }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: { ok: 302, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.name).toBe("Renamed Owner") },
          admin: { ok: 302, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.name).toBe("Renamed Owner") },
        },
      },
      {
        name: "make the owner ADMIN from the profile editor without the admin secret",
        call: (w) => ({
          url: "/x",
          params: [w.owner.id],
          form: { name: "Owen Owner", username: w.owner.username, password: "", role: "ADMIN", bio: "", adminPassword: "guess" },
        }),
        expect: {
          anon: toLogin,
          other: forbidden,
          // No ADMIN_SECRET in tests: self-elevation is refused with a message.
          owner: forbidden,
          // An ADMIN chooses roles freely.
          admin: { ok: 302, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.role).toBe("ADMIN") },
        },
      },
    ],
  },
  "/ReciPals/Account/Signup": {
    probes: [
      {
        name: "sign-up details",
        call: () => ({ url: "/x", form: { name: "New Person", username: uniqueUsername("new"), password: "pw-123456", verifyPassword: "pw-123456" } }),
        // The draft is a signed cookie: nothing is written before the tags step.
        expect: signedIn({ refused: 302, location: /^\/ReciPals\/Home$/ }, { ok: 302, location: /SignupTags$/, touches: [] }),
      },
    ],
  },
  "/ReciPals/Account/SignupTags": {
    probes: [
      {
        name: "finish sign-up with a draft",
        call: async (w, actor) => {
          const draft = await commitSignupDraft(new Request(ORIGIN), { name: "Drafted", username: uniqueUsername("draft"), passwordHash: "scrypt$x$y" });
          const pair = draft.split(";")[0]!;
          const mine = w.cookie(actor);
          return { url: "/x", form: { tags: ["Baker"] }, cookie: mine ? `${mine}; ${pair}` : pair };
        },
        expect: signedIn(
          { refused: 302, location: /^\/ReciPals\/Home$/ },
          { ok: 302, touches: ["users", "user_tags", "sessions"], effect: (_w, _a, outcome) => expect(outcome.location).toMatch(/^\/ReciPals\/Account\/Profile\//) },
        ),
      },
      {
        name: "finish sign-up without a draft",
        call: () => ({ url: "/x", form: { tags: ["Baker"] } }),
        expect: signedIn({ refused: 302, location: /^\/ReciPals\/Home$/ }, { refused: 302, location: /\/Signup$/ }),
      },
    ],
  },
  "/ReciPals/Editor/:": {
    probes: [
      {
        name: "save changes to the owner's recipe",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { ...RECIPE_FORM("Renamed by probe"), intent: "save", mode: "edit" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: {
            ok: 302,
            touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"],
            effect: async (w) => expect((await rowsOf("recipes", "id", w.recipeId))[0]?.name).toBe("Renamed by probe"),
          },
          admin: {
            ok: 302,
            touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"],
            effect: async (w) => {
              const [recipe] = await rowsOf("recipes", "id", w.recipeId);
              expect(recipe?.name).toBe("Renamed by probe");
              expect(recipe?.user_created, "an admin's edit keeps the creator").toBe(w.owner.id);
            },
          },
        },
      },
      {
        name: "delete the owner's recipe",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "delete", confirm: "yes", mode: "edit" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          owner: { ok: 302, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
          admin: { ok: 302, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
        },
      },
      {
        name: "create a new recipe claiming the owner as its creator",
        call: (w) => ({ url: "/x", params: [crypto.randomUUID()], form: { ...RECIPE_FORM("Forged creator"), intent: "save", mode: "create", user_created: w.owner.id } }),
        expect: {
          anon: toLogin,
          other: { refused: 400 },
          // The owner claiming themself is just the truth.
          owner: { ok: 302, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"], effect: onlyCreatedBy },
          admin: { refused: 400 },
        },
      },
      {
        name: "create a new recipe",
        call: () => ({ url: "/x", params: [crypto.randomUUID()], form: { ...RECIPE_FORM("Fresh recipe"), intent: "save", mode: "create" } }),
        expect: signedIn({
          ok: 302,
          touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"],
          effect: onlyCreatedBy,
        }),
      },
    ],
  },
  "/ReciPals/Notifications": {
    probes: [
      {
        name: "mark all one's notifications read",
        call: () => ({ url: "/x", form: { intent: "read-all" } }),
        expect: signedIn({ ok: 302, touches: ["notifications"], effect: onlyActorsRows("user_id") }),
      },
      {
        name: "mark the owner's notification read by its id",
        call: async (w) => ({ url: "/x", form: { intent: "read", id: await ownersNotification(w) } }),
        expect: {
          anon: toLogin,
          other: { ok: 302, touches: [] },
          owner: { ok: 302, touches: ["notifications"], effect: onlyActorsRows("user_id") },
          admin: { ok: 302, touches: [] },
        },
      },
    ],
  },
  "/ReciPals/ShoppingList": {
    probes: [
      {
        name: "add the owner's recipe to one's own list (with a forged user id)",
        call: (w) => ({ url: "/x", form: { intent: "add", recipeId: w.recipeId, serves: "2", userId: w.owner.id } }),
        expect: signedIn({ ok: 302, touches: ["shopping_recipes", "shopping_items"], effect: onlyActorsRows("user_id") }),
      },
      {
        name: "check an item of the owner's list",
        call: async (w) => ({ url: "/x", form: { intent: "check", id: await ownersShoppingItem(w) } }),
        expect: {
          anon: toLogin,
          other: { refused: 404 },
          owner: { ok: 302, touches: ["shopping_items"], effect: onlyActorsRows("user_id") },
          admin: { refused: 404 },
        },
      },
      {
        name: "remove a recipe from one's own list (the owner's is untouched)",
        call: async (w) => {
          await ownersShoppingItem(w);
          return { url: "/x", form: { intent: "remove-recipe", recipeId: w.recipeId } };
        },
        expect: {
          anon: toLogin,
          other: { refused: 404 },
          owner: { ok: 302, touches: ["shopping_recipes", "shopping_items"], effect: onlyActorsRows("user_id") },
          admin: { refused: 404 },
        },
      },
      {
        name: "clear one's own list (confirmed)",
        call: async (w) => {
          await ownersShoppingItem(w);
          return { url: "/x", form: { intent: "clear", confirm: "yes" } };
        },
        expect: {
          anon: toLogin,
          other: { ok: 302, touches: [] },
          owner: { ok: 302, touches: ["shopping_recipes", "shopping_items"], effect: onlyActorsRows("user_id") },
          admin: { ok: 302, touches: [] },
        },
      },
    ],
  },
  "/ReciPals/Comments/:/Delete": {
    probes: [
      {
        // Its author (other), the recipe's creator (owner) and an ADMIN may; a visitor signs in first.
        name: "delete other's comment on the owner's recipe",
        call: (w) => ({ url: "/x", params: [w.otherCommentId], form: { intent: "delete-comment", confirm: "yes", returnTo: "/ReciPals/Home" } }),
        expect: signedIn({
          ok: 302,
          location: /^\/ReciPals\/Home$/,
          touches: ["comments"],
          effect: (w, _actor, _outcome, changes) => {
            const removed = changes.find((c) => c.table === "comments")?.removed ?? [];
            expect(removed.map((row) => JSON.parse(row).id)).toEqual([w.otherCommentId]);
          },
        }),
      },
      {
        name: "delete the owner's own comment on their recipe",
        call: (w) => ({ url: "/x", params: [w.ownerCommentId], form: { intent: "delete-comment", confirm: "yes", returnTo: "https://evil.example/" } }),
        expect: {
          anon: toLogin,
          other: forbidden,
          // A return address on another site is not followed: back to the recipe's comments.
          owner: { ok: 302, location: /^\/ReciPals\/Recipes\/[^/]+#comments$/, touches: ["comments"] },
          admin: { ok: 302, touches: ["comments"] },
        },
      },
      {
        name: "ask to delete without confirming: the confirmation page, nothing deleted",
        call: (w) => ({ url: "/x", params: [w.ownerCommentId], form: { intent: "delete-comment" } }),
        expect: signedIn({ ok: 302, location: /\/ReciPals\/Comments\/[^/]+\/Delete$/, touches: [] }),
      },
    ],
  },
  "/ReciPals/Account/Profile/:/Posts/:": {
    probes: [
      {
        // The post viewer's comment box: anyone signed in, as themselves; a visitor signs in first.
        name: "comment on the owner's post from its viewer (with a forged user id)",
        call: (w) => ({ url: "/x", params: [w.owner.id, w.postId], form: { intent: "comment", text: "Probe from the viewer", user_id: w.owner.id, userId: w.owner.id } }),
        expect: signedIn({ ok: 302, location: /^\/ReciPals\/Account\/Profile\/[^/]+\/Posts\/[^/]+#comment-/, touches: ["comments"], effect: onlyActorsRows("user_id") }),
      },
      {
        name: "a blank comment from the viewer",
        call: (w) => ({ url: "/x", params: [w.owner.id, w.postId], form: { intent: "comment", text: "   " } }),
        expect: signedIn({ refused: 400 }),
      },
    ],
  },
  "/ReciPals/Posts/:/Like": {
    probes: [
      {
        name: "like the owner's post (with a forged user id)",
        call: (w) => ({ url: "/x", params: [w.postId], form: { intent: "like", userId: w.owner.id, user_id: w.owner.id, redirectTo: "/ReciPals/Home" } }),
        expect: signedIn({ ok: 302, location: /^\/ReciPals\/Home$/, touches: ["likes"], effect: onlyActorsRows("user_id") }),
      },
      {
        name: "unlike the owner's post",
        call: (w) => ({ url: "/x", params: [w.postId], form: { intent: "unlike" } }),
        expect: signedIn({ ok: 302, touches: ["likes"], effect: onlyActorsRows("user_id") }),
      },
    ],
  },
  "/ReciPals/Recipes/:/Save": {
    probes: [
      {
        name: "save the owner's recipe",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "save", userId: w.other.id } }),
        expect: signedIn({ ok: 302, touches: ["saved_recipes"], effect: onlyActorsRows("user_id") }),
      },
      {
        name: "unsave the owner's recipe",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "unsave", userId: w.other.id } }),
        expect: signedIn({ ok: 302, touches: ["saved_recipes"], effect: onlyActorsRows("user_id") }),
      },
    ],
  },
  "/ReciPals/Recipes/:/Cooked": {
    probes: [
      {
        name: "say I made the owner's recipe (with a forged user id)",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "cooked", mode: "add", rating: "4", note: "Probe", userId: w.owner.id, user_id: w.owner.id } }),
        expect: {
          anon: toLogin,
          other: { ok: 302, touches: ["cooks"], effect: onlyActorsRows("user_id") },
          // Not on one's own recipe (docs/rules.md#i-made-this).
          owner: forbidden,
          admin: { ok: 302, touches: ["cooks"], effect: onlyActorsRows("user_id") },
        },
      },
      {
        name: "remove someone else's entry",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "remove-cook", userId: w.admin.id, confirm: "yes" } }),
        // Only an ADMIN removes others' entries; the admin's own (there is none) leaves nothing to remove.
        expect: { anon: toLogin, other: forbidden, owner: forbidden, admin: { refused: 302 } },
      },
    ],
  },
  "/ReciPals/Theme": {
    probes: [
      {
        name: "choose the dark theme",
        call: () => ({ url: "/ReciPals/Theme", form: { theme: "dark", returnTo: "/ReciPals/Home" } }),
        // A cookie, anyone's: nothing stored.
        expect: same({ refused: 303, location: /^\/ReciPals\/Home$/ }),
      },
    ],
  },
  "/ReciPals/Recipes/:": {
    probes: [
      {
        name: "choose US units (anyone)",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "units", units: "us" } }),
        expect: same({ refused: 302 }),
      },
      {
        name: "comment on the owner's recipe (with a forged user id)",
        call: (w) => ({ url: "/x", params: [w.recipeId], form: { intent: "comment", text: "Probe comment", user_id: w.owner.id, userId: w.owner.id } }),
        expect: signedIn({ ok: 302, touches: ["comments"], effect: onlyActorsRows("user_id") }),
      },
    ],
  },
};

async function onlyCreatedBy(w: World, actor: Actor, _outcome: Outcome, changes: ReturnType<typeof diff>) {
  const recipes = changes.find((c) => c.table === "recipes")?.added ?? [];
  expect(recipes).toHaveLength(1);
  for (const row of recipes) expect(JSON.parse(row).user_created).toBe(idOf(w, actor));
  for (const row of changes.find((c) => c.table === "posts")?.added ?? []) expect(JSON.parse(row).created_by).toBe(idOf(w, actor));
}

// ---------------------------------------------------------------------------------------------
// The JSON API (docs/rules.md#json-api, issue 8). Every entry names a route file in app/routes: a
// missing one fails the matrix (it is never skipped). Visitors get 401, the wrong user 403.

const API_OK = [200, 201, 204];
const apiSignedIn = (expectation: Expectation) => signedIn(expectation, unauthorized);

function userBody(w: World, changes: Record<string, unknown>) {
  return { _id: w.owner.id, name: w.owner.name, username: w.owner.username, role: "USER", bio: "", tags: [], ...changes };
}

const API_MATRIX: Record<string, Entry> = {
  "/api/*": {
    probes: [
      {
        name: "POST to an unknown /api path",
        call: () => ({ url: "/api/nothing/here", params: ["nothing/here"], json: { any: "thing" } }),
        expect: same({ refused: 404 }),
      },
    ],
  },
  "/api/recipes/search": {
    probes: [
      {
        name: "POST to the (GET-only) recipe search",
        call: () => ({ url: "/api/recipes/search?q=x", json: { q: "x" } }),
        expect: same({ refused: 405 }),
      },
    ],
  },
  "/api/users/signin": {
    probes: [
      {
        name: "sign in as the owner",
        call: (w) => ({ url: "/api/users/signin", json: { username: w.owner.username, password: PASSWORD } }),
        expect: same({ ok: 200, touches: ["sessions", "sign_in_failures"] }),
      },
      {
        name: "sign in with a wrong password",
        call: (w) => ({ url: "/api/users/signin", json: { username: w.owner.username, password: "nope nope" } }),
        expect: same({ refused: 401 }),
        refusalMayWrite: ["sign_in_failures"],
      },
    ],
  },
  "/api/users/signup": {
    probes: [
      {
        name: "sign up (role ADMIN asked for)",
        call: () => ({ url: "/api/users/signup", json: { name: "Api Person", username: uniqueUsername("api"), password: "pw-123456", role: "ADMIN", tags: [] } }),
        expect: same({
          either: true,
          touches: ["users", "user_tags", "sessions"],
          effect: (_w, _a, _o, changes) => {
            // Whatever the caller asks, a signed-up user is a USER and nobody else's rows change.
            for (const row of changes.find((c) => c.table === "users")?.added ?? []) expect(JSON.parse(row).role).toBe("USER");
            for (const change of changes) if (change.table !== "sessions") expect(change.removed).toEqual([]);
          },
        }),
      },
    ],
  },
  "/api/users/password-reset": {
    probes: [
      {
        name: "ask for a reset link for the owner (no confirmed address)",
        call: (w) => ({ url: "/api/users/password-reset", json: { login: w.owner.username } }),
        expect: same({ ok: 202, touches: [] }),
      },
    ],
  },
  "/api/users/password-reset/confirm": {
    probes: [
      {
        name: "a new password with a token no link had",
        call: () => ({ url: "/api/users/password-reset/confirm", json: { token: "no-link-ever-had-this-token-0000", password: "pw-new-1" } }),
        expect: same({ refused: 400 }),
      },
    ],
  },
  "/api/users/signout": {
    probes: [
      {
        name: "sign out",
        call: () => ({ url: "/api/users/signout", json: undefined }),
        expect: {
          anon: { ok: API_OK, touches: [] },
          other: { ok: API_OK, touches: ["sessions"], effect: onlyActorsRows("user_id") },
          owner: { ok: API_OK, touches: ["sessions"], effect: onlyActorsRows("user_id") },
          admin: { ok: API_OK, touches: ["sessions"], effect: onlyActorsRows("user_id") },
        },
      },
    ],
  },
  "/api/users/profile": {
    probes: [
      {
        name: "read the session user by POST",
        call: () => ({ url: "/api/users/profile", json: undefined }),
        expect: apiSignedIn({ ok: 200, touches: [] }),
      },
    ],
  },
  "/api/users": {
    probes: [
      {
        name: "create a user",
        call: () => ({ url: "/api/users", json: { name: "Made", username: uniqueUsername("made"), password: "pw-123456", role: "ADMIN" } }),
        expect: { anon: unauthorized, other: forbidden, owner: forbidden, admin: { ok: [200, 201], touches: ["users", "user_tags"] } },
      },
    ],
  },
  "/api/users/:": {
    probes: [
      {
        name: "update the owner",
        call: (w) => ({ method: "PUT", url: `/api/users/${w.owner.id}`, params: [w.owner.id], json: userBody(w, { name: "Api Renamed" }) }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { ok: 200, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.name).toBe("Api Renamed") },
          admin: { ok: 200, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.name).toBe("Api Renamed") },
        },
      },
      {
        name: "make the owner ADMIN through a PUT",
        call: (w) => ({ method: "PUT", url: `/api/users/${w.owner.id}`, params: [w.owner.id], json: userBody(w, { role: "ADMIN" }) }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { refused: [400, 403] },
          admin: { ok: 200, touches: ["users", "user_tags"], effect: async (w) => expect((await rowsOf("users", "id", w.owner.id))[0]?.role).toBe("ADMIN") },
        },
      },
      {
        name: "delete the owner",
        call: (w) => ({ method: "DELETE", url: `/api/users/${w.owner.id}`, params: [w.owner.id] }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: forbidden,
          admin: {
            ok: API_OK,
            touches: ["users", "user_tags", "follows", "likes", "saved_recipes", "sessions", "comments", "recipes", "posts"],
            effect: async (w) => expect(await rowsOf("users", "id", w.owner.id)).toEqual([]),
          },
        },
      },
    ],
  },
  "/api/users/:/save": {
    probes: [
      {
        name: "save a recipe into the owner's list",
        call: (w) => ({ method: "PUT", url: `/api/users/${w.owner.id}/save`, params: [w.owner.id], json: { recipeId: w.recipeId } }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { ok: 200, touches: ["saved_recipes"], effect: onlyActorsRows("user_id") },
          admin: forbidden,
        },
      },
    ],
  },
  "/api/users/:/unsave": {
    probes: [
      {
        name: "unsave a recipe from other's list",
        call: (w) => ({ method: "PUT", url: `/api/users/${w.other.id}/unsave`, params: [w.other.id], json: { recipeId: w.recipeId } }),
        expect: {
          anon: unauthorized,
          other: { ok: 200, touches: ["saved_recipes"], effect: onlyActorsRows("user_id") },
          owner: forbidden,
          admin: forbidden,
        },
      },
    ],
  },
  "/api/notifications/read": {
    probes: [
      {
        name: "mark the owner's notification read by its id",
        call: async (w) => ({ url: "/api/notifications/read", json: { ids: [await ownersNotification(w)] } }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: [] },
          owner: { ok: API_OK, touches: ["notifications"], effect: onlyActorsRows("user_id") },
          admin: { ok: API_OK, touches: [] },
        },
      },
    ],
  },
  "/api/notifications": {
    probes: [
      {
        name: "a write to the read-only list",
        call: () => ({ url: "/api/notifications", json: {} }),
        expect: { anon: { refused: [401, 405] }, other: { refused: 405 }, owner: { refused: 405 }, admin: { refused: 405 } },
      },
    ],
  },
  "/api/users/follow/:": {
    probes: [
      {
        name: "follow the owner",
        call: (w) => ({ url: `/api/users/follow/${w.owner.id}`, params: [w.owner.id], json: undefined }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: [] },
          owner: { refused: 400 },
          admin: { ok: API_OK, touches: ["follows"], effect: onlyActorsRows("follower_id") },
        },
      },
    ],
  },
  "/api/users/unfollow/:": {
    probes: [
      {
        name: "unfollow the owner",
        call: (w) => ({ url: `/api/users/unfollow/${w.owner.id}`, params: [w.owner.id], json: undefined }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: ["follows"], effect: onlyActorsRows("follower_id") },
          owner: { refused: 400 },
          admin: { ok: API_OK, touches: [] },
        },
      },
    ],
  },
  "/api/posts": {
    probes: [
      {
        name: "create a post claiming the owner as its author",
        call: (w) => ({
          url: "/api/posts",
          json: { post_id: crypto.randomUUID(), recipe_id: w.recipeId, created_by: w.owner.id, title: "Forged", caption: "Forged", likes: [w.other.id], comments: [] },
        }),
        expect: apiSignedIn({
          either: true,
          touches: ["posts"],
          effect: (w, actor, _o, changes) => {
            for (const row of changes.find((c) => c.table === "posts")?.added ?? []) expect(JSON.parse(row).created_by).toBe(idOf(w, actor));
          },
        }),
      },
    ],
  },
  "/api/posts/:": {
    probes: [
      {
        name: "PUT the whole post with only the caller's own like added",
        call: async (w, actor) => {
          const likes = (await rowsOf("likes", "post_id", w.postId)).map((row) => row.user_id as string);
          const mine = idOf(w, actor);
          return {
            method: "PUT",
            url: `/api/posts/${w.postId}`,
            params: [w.postId],
            json: { post_id: w.postId, _id: w.postId, recipe_id: w.recipeId, created_by: w.owner.id, title: "Owner's Stew", caption: "A test recipe", likes: mine && !likes.includes(mine) ? [...likes, mine] : likes },
          };
        },
        expect: {
          anon: unauthorized,
          other: { ok: 200, touches: [] },
          owner: { ok: 200, touches: ["likes"], effect: onlyActorsRows("user_id") },
          admin: { ok: 200, touches: ["likes"], effect: onlyActorsRows("user_id") },
        },
      },
      {
        name: "PUT the post with its caption changed and other's like removed",
        call: (w) => ({
          method: "PUT",
          url: `/api/posts/${w.postId}`,
          params: [w.postId],
          json: { post_id: w.postId, _id: w.postId, recipe_id: w.recipeId, created_by: w.owner.id, title: "Owner's Stew", caption: "Defaced", likes: [] },
        }),
        expect: {
          anon: unauthorized,
          // Only one's own like may change, even for the owner (issue 8's rule as built); an ADMIN may do anything.
          other: forbidden,
          owner: forbidden,
          admin: { ok: 200, touches: ["posts", "likes"] },
        },
      },
      {
        name: "delete the post",
        call: (w) => ({ method: "DELETE", url: `/api/posts/${w.postId}`, params: [w.postId] }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { ok: API_OK, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
          admin: { ok: API_OK, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
        },
      },
    ],
  },
  "/api/reports": {
    probes: [
      {
        name: "report the owner's post",
        call: (w) => ({ url: "/api/reports", json: { kind: "post", target_id: w.postId, reason: "spam" } }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: ["reports"], effect: onlyActorsRows("reporter_id") },
          owner: { refused: 400 },
          admin: { ok: API_OK, touches: ["reports"], effect: onlyActorsRows("reporter_id") },
        },
      },
    ],
  },
  "/api/reports/resolve": {
    probes: [
      {
        name: "dismiss the reports of the owner's post",
        call: async (w) => {
          await reportedPost(w);
          return { url: "/api/reports/resolve", json: { kind: "post", target_id: w.postId, action: "dismiss" } };
        },
        expect: { anon: unauthorized, other: forbidden, owner: forbidden, admin: { ok: API_OK, touches: ["reports", "moderation_log", "notifications"] } },
      },
    ],
  },
  "/api/blocks": {
    probes: [
      {
        name: "block the owner",
        call: (w) => ({ url: "/api/blocks", json: { user_id: w.owner.id } }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: ["blocks", "follows"], effect: relationOfOwner("blocks") },
          owner: { refused: 400 },
          admin: { ok: API_OK, touches: ["blocks"], effect: relationOfOwner("blocks") },
        },
      },
      {
        name: "block a forged id",
        call: () => ({ url: "/api/blocks", json: { user_id: "no-such-user" } }),
        expect: apiSignedIn({ refused: 404 }),
      },
    ],
  },
  "/api/blocks/:": {
    probes: [
      {
        name: "unblock the owner (never blocked)",
        call: (w) => ({ method: "DELETE", url: `/api/blocks/${w.owner.id}`, params: [w.owner.id] }),
        expect: { anon: unauthorized, other: { ok: API_OK, touches: [] }, owner: { refused: 400 }, admin: { ok: API_OK, touches: [] } },
      },
    ],
  },
  "/api/mutes": {
    probes: [
      {
        name: "mute the owner",
        call: (w) => ({ url: "/api/mutes", json: { user_id: w.owner.id } }),
        expect: {
          anon: unauthorized,
          other: { ok: API_OK, touches: ["mutes"], effect: relationOfOwner("mutes") },
          owner: { refused: 400 },
          admin: { ok: API_OK, touches: ["mutes"], effect: relationOfOwner("mutes") },
        },
      },
    ],
  },
  "/api/mutes/:": {
    probes: [
      {
        name: "unmute the owner (never muted)",
        call: (w) => ({ method: "DELETE", url: `/api/mutes/${w.owner.id}`, params: [w.owner.id] }),
        expect: { anon: unauthorized, other: { ok: API_OK, touches: [] }, owner: { refused: 400 }, admin: { ok: API_OK, touches: [] } },
      },
    ],
  },
  "/api/posts/:/comments": {
    probes: [
      {
        name: "comment claiming to be the owner",
        call: (w) => ({ url: `/api/posts/${w.postId}/comments`, params: [w.postId], json: { user_id: w.owner.id, text: "Api probe comment" } }),
        expect: apiSignedIn({ ok: [200, 201], touches: ["comments"], effect: onlyActorsRows("user_id") }),
      },
    ],
  },
  "/api/recipes": {
    probes: [
      {
        name: "create a recipe claiming the owner as its creator",
        call: (w) => ({
          url: "/api/recipes",
          json: {
            recipe_id: crypto.randomUUID(),
            user_created: w.owner.id,
            name: "Api recipe",
            description: "Made by a probe",
            total_time: "5min",
            serves: 1,
            tags: [],
            ingredients_sec: [{ _id: "s1", title: "Main", ingredients: ["Salt"] }],
            steps: ["Stir."],
          },
        }),
        expect: apiSignedIn({
          either: true,
          touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"],
          effect: (w, actor, _o, changes) => {
            for (const row of changes.find((c) => c.table === "recipes")?.added ?? []) expect(JSON.parse(row).user_created).toBe(idOf(w, actor));
          },
        }),
      },
    ],
  },
  "/api/recipes/:/cooks": {
    probes: [
      {
        name: "say I made the owner's recipe",
        call: (w) => ({ method: "POST", url: `/api/recipes/${w.recipeId}/cooks`, params: [w.recipeId], json: { rating: 5, note: "Probe" } }),
        expect: {
          anon: unauthorized,
          other: { ok: 201, touches: ["cooks"], effect: onlyActorsRows("user_id") },
          owner: forbidden,
          admin: { ok: 201, touches: ["cooks"], effect: onlyActorsRows("user_id") },
        },
      },
      {
        name: "delete one's entry (there is none)",
        call: (w) => ({ method: "DELETE", url: `/api/recipes/${w.recipeId}/cooks`, params: [w.recipeId] }),
        expect: { anon: unauthorized, other: { refused: 404 }, owner: { refused: 404 }, admin: { refused: 404 } },
      },
    ],
  },
  "/api/recipes/:": {
    probes: [
      {
        name: "rename the owner's recipe",
        call: (w) => ({ method: "PUT", url: `/api/recipes/${w.recipeId}`, params: [w.recipeId], json: { recipe_id: w.recipeId, name: "Api renamed" } }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { ok: 200, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"] },
          admin: { ok: 200, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts"] },
        },
      },
      {
        name: "delete the owner's recipe",
        call: (w) => ({ method: "DELETE", url: `/api/recipes/${w.recipeId}`, params: [w.recipeId] }),
        expect: {
          anon: unauthorized,
          other: forbidden,
          owner: { ok: API_OK, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
          admin: { ok: API_OK, touches: ["recipes", "recipe_tags", "ingredient_sections", "ingredient_lines", "steps", "posts", "likes", "comments", "saved_recipes"] },
        },
      },
    ],
  },
};

const MATRIX: Record<string, Entry> = { ...PAGE_MATRIX, ...API_MATRIX };

// ---------------------------------------------------------------------------------------------

useScratchUploads();
const routes = discoverRoutes();
const modules = new Map(await Promise.all(routes.map(async (route) => [route.pattern, { route, module: (await import(route.modulePath)) as Record<string, unknown> }] as const)));
const withAction = [...modules.values()].filter(({ module }) => typeof module.action === "function");
const withLoader = [...modules.values()].filter(({ module }) => typeof module.loader === "function");

function statusList(value: number | number[]) {
  return Array.isArray(value) ? value : [value];
}

function buildRequest(call: Call, cookie: string | undefined): Request {
  const method = call.method ?? "POST";
  if (call.form) {
    const request = formRequest(call.url, call.form, cookie);
    return method === "POST" ? request : new Request(request, { method });
  }
  return jsonRequest(method, call.url, call.json, cookie);
}

async function runProbe(pattern: string, probe: Probe, actor: Actor) {
  const found = modules.get(pattern);
  expect(found, `${pattern}: no route file in app/routes for this matrix entry`).toBeDefined();
  const { route, module } = found!;
  expect(typeof module.action, `${pattern} (${route.file}) exports no action`).toBe("function");
  await emptyTables();
  const w = await makeWorld();
  const call = await probe.call(w, actor);
  const params = Object.fromEntries(route.params.map((name, index) => [name, call.params?.[index] ?? ""]));
  const request = buildRequest(call, call.cookie ?? w.cookie(actor));
  const before: Snapshot = await snapshot();
  const outcome = await outcomeOf(() => (module.action as (args: unknown) => unknown)({ request, params, context: {} }));
  const after = await snapshot();
  const expectation = probe.expect[actor];
  const label = `${pattern} · ${probe.name} · as ${actor} → ${outcome.status} ${outcome.location ?? ""} ${typeof outcome.body === "string" ? outcome.body.slice(0, 120) : JSON.stringify(outcome.body)?.slice(0, 200)}`;

  expect(outcome.status, label).toBeLessThan(500);
  const refused = "refused" in expectation || ("either" in expectation && outcome.status >= 400);
  if (refused) {
    if ("refused" in expectation) {
      expect(statusList(expectation.refused), label).toContain(outcome.status);
      if (expectation.location) expect(outcome.location ?? "", label).toMatch(expectation.location);
    }
    expect(diff(before, after, probe.refusalMayWrite ?? []), `${label}: a refused request changed data`).toEqual([]);
    if (pattern.startsWith("/api/")) {
      // The API never answers an error as an HTML page.
      expect(typeof outcome.body === "object" && outcome.body !== null && "message" in outcome.body, `${label}: JSON {message}`).toBe(true);
    }
    return;
  }
  if ("ok" in expectation) {
    expect(statusList(expectation.ok), label).toContain(outcome.status);
    if (expectation.location) expect(outcome.location ?? "", label).toMatch(expectation.location);
  }
  const changes = diff(before, after);
  const allowed = withSideTables(expectation.touches);
  for (const change of changes) expect(allowed, `${label}: unexpected change in ${change.table}: ${JSON.stringify(change).slice(0, 400)}`).toContain(change.table);
  await expectation.effect?.(w, actor, outcome, changes.filter((change) => expectation.touches.includes(change.table)));
}

describe("permission matrix", () => {
  it("has an expectation for every route that exports an action (a new route must be added here)", () => {
    expect(withAction.length, "no route module with an action was found in app/routes").toBeGreaterThan(0);
    const missing = withAction.map(({ route }) => `${route.pattern}  (${route.file})`).filter((label) => !(label.split("  ")[0]! in MATRIX));
    expect(missing, "routes with an action but no entry in the permission matrix").toEqual([]);
  });

  it("names only routes that exist in app/routes and export an action (a deleted route fails here)", () => {
    const notInRoutes = Object.keys(MATRIX).filter((pattern) => !modules.has(pattern));
    expect(notInRoutes, "matrix entries with no route file in app/routes").toEqual([]);
    const withoutAction = Object.keys(MATRIX).filter((pattern) => modules.has(pattern) && typeof modules.get(pattern)!.module.action !== "function");
    expect(withoutAction, "matrix entries whose route no longer exports an action").toEqual([]);
    // Every /api route is in the matrix: the JSON API is no longer "to be built".
    const apiWithAction = withAction.filter(({ route }) => route.api).map(({ route }) => route.pattern);
    expect(Object.keys(API_MATRIX).sort(), "API_MATRIX lists exactly the /api routes that have an action").toEqual(apiWithAction.sort());
  });

  it("catches a route that forgets its guard (self-test of the harness)", async () => {
    // A forged route that deletes the recipe for whoever asks, checked against the real admin-delete expectations.
    const pattern = "/__selftest/unguarded-delete/:";
    modules.set(pattern, {
      route: { file: "(self-test)", modulePath: "", pattern, params: ["rid"], template: "/__selftest/unguarded-delete/:rid", index: false, api: false, hasAction: true },
      module: {
        action: async ({ params }: { params: { rid: string } }) => {
          await db.deleteFrom("recipes").where("id", "=", params.rid).execute();
          return new Response(null, { status: 302, headers: { Location: "/ReciPals/Account/Admin/Recipes" } });
        },
      },
    });
    const probe = MATRIX["/ReciPals/Account/Admin/Recipes/:"]!.probes[0]!;
    await expect(runProbe(pattern, probe, "other")).rejects.toThrow();
    await expect(runProbe(pattern, probe, "anon")).rejects.toThrow();
    await runProbe(pattern, probe, "admin");
    modules.delete(pattern);
  });

  for (const [pattern, entry] of Object.entries(MATRIX)) {
    // Never skipped: a route missing from app/routes makes each of its probes fail (runProbe).
    describe(pattern, () => {
      for (const probe of entry.probes) {
        for (const actor of ACTORS) {
          it(`${probe.name} — as ${actor}`, () => runProbe(pattern, probe, actor));
        }
      }
    });
  }
});

describe("GET never changes anything", () => {
  // Every loader, as every actor, with params pointing at real rows: nothing is written on GET
  // (sessions and sign-in failures included). Loaders that need no params get none.
  const PARAM_VALUES: Record<string, (w: World) => string> = {
    uid: (w) => w.owner.id,
    id: (w) => w.owner.id,
    rid: (w) => w.recipeId,
    recipe_id: (w) => w.recipeId,
    pid: (w) => w.postId,
    post_id: (w) => w.postId,
    file: () => "0".repeat(64) + ".webp",
    "*": () => "no/such/page",
  };
  it.each(withLoader.map(({ route }) => [route.pattern, route] as const))("%s", async (_pattern, route) => {
    const { module } = modules.get(route.pattern)!;
    for (const actor of ACTORS) {
      await emptyTables();
      const w = await makeWorld();
      const params = Object.fromEntries(route.params.map((name) => [name, (PARAM_VALUES[name] ?? ((x: World) => x.owner.id))(w)]));
      const url = route.pattern.replace("/(index)", "").replace(/\/:|\/\*/g, () => "/x");
      const request = new Request(new URL(url, ORIGIN), { headers: w.cookie(actor) ? { Cookie: w.cookie(actor)! } : {} });
      const before = await snapshot();
      const outcome = await outcomeOf(() => (module.loader as (args: unknown) => unknown)({ request, params, context: {} }));
      expect(outcome.status, `${route.pattern} as ${actor}`).toBeLessThan(500);
      expect(diff(before, await snapshot()), `${route.pattern} as ${actor}: GET changed data`).toEqual([]);
    }
  });
});
