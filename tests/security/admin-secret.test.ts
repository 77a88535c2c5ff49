import { describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  process.env.ADMIN_SECRET = "the-real-admin-secret";
});

import { action as profileEditAction } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { db } from "~/server/db/connection.server";
import { THROTTLE, THROTTLE_MESSAGE } from "~/server/auth/limits.server";

import { requireRouteHandler } from "../support/server/routes";
import { jsonRequest, outcomeOf, quickUser } from "../support/server/world";
import { formRequest } from "../support/app";

// The admin secret is a password: a USER guessing it from the profile editor (or the API's
// PUT /api/users/{id}) is held to the sign-in limits — after 5 wrong guesses every try is
// refused with 429, the right secret included, and the role stays USER.

const SECRET = "the-real-admin-secret";
const roleOf = async (id: string) => (await db.selectFrom("users").select("role").where("id", "=", id).executeTakeFirstOrThrow()).role;

function elevate(user: { id: string; username: string; cookie: string }, adminPassword: string, address = "198.51.100.7") {
  const request = formRequest("/x", { name: "Climber", username: user.username, password: "", role: "ADMIN", bio: "", adminPassword }, user.cookie);
  return outcomeOf(() => profileEditAction({ request, params: { uid: user.id }, context: { clientAddress: address } }));
}

describe("guessing the admin secret", () => {
  it("the right secret works at once (control)", async () => {
    const user = await quickUser();
    const outcome = await elevate(user, SECRET);
    expect(outcome.status).toBe(302);
    expect(await roleOf(user.id)).toBe("ADMIN");
  });

  it("the profile editor: after 5 wrong guesses, even the right secret is refused with 429", async () => {
    const user = await quickUser();
    for (let i = 0; i < THROTTLE.perUsernameAndAddress; i += 1) {
      const wrong = await elevate(user, `guess-${i}`);
      expect(wrong.status).toBe(403);
      expect((wrong.body as { formError: string }).formError).toBe("Incorrect admin password");
    }
    const right = await elevate(user, SECRET);
    expect(right.status).toBe(429);
    expect((right.body as { formError: string }).formError).toBe(THROTTLE_MESSAGE);
    expect(await roleOf(user.id)).toBe("USER");
    // Another user at another address is not affected.
    const other = await quickUser();
    expect((await elevate(other, SECRET, "203.0.113.50")).status).toBe(302);
  });

  it("the JSON API: the same limit, shared with the page", async () => {
    // A missing PUT /api/users/{id} fails here (it is never skipped).
    const action = await requireRouteHandler("/api/users/:");
    const user = await quickUser();
    const put = (adminPassword: string) =>
      outcomeOf(() =>
        action({
          request: jsonRequest("PUT", `/api/users/${user.id}`, { _id: user.id, role: "ADMIN", adminPassword }, user.cookie),
          params: { id: user.id },
          context: { clientAddress: "198.51.100.99" },
        }),
      );
    for (let i = 0; i < 3; i += 1) expect((await put(`api-guess-${i}`)).status).toBe(403);
    for (let i = 0; i < 2; i += 1) expect((await elevate(user, `page-guess-${i}`, "198.51.100.99")).status).toBe(403);
    const right = await put(SECRET);
    expect(right.status).toBe(429);
    expect((right.body as { message: string }).message).toBe(THROTTLE_MESSAGE);
    expect(await roleOf(user.id)).toBe("USER");
  });
});
