import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";

import { TAG_LIMIT_MESSAGE } from "~/lib/tags";
import { action as editAction, loader as editLoader } from "~/routes/ReciPals.Account.Profile.$uid_.Edit";
import { db } from "~/server/db/connection.server";
import { env } from "~/server/env.server";
import { getUserProfile, verifyLogin } from "~/server/queries/users.server";
import { RATE_LIMITS } from "~/server/auth/limits.server";

import { dataOf, expectRedirect, getRequest, makeUser, ORIGIN, routeArgs, settle, signedInCookie } from "../support/app";
import { useScratchUploads } from "../support/settings";

const editPath = (uid: string) => `/ReciPals/Account/Profile/${encodeURIComponent(uid)}/Edit`;
const profilePath = (uid: string) => `/ReciPals/Account/Profile/${encodeURIComponent(uid)}`;
const SECRET = "unit-admin-secret";

interface Failure {
  formError: string | null;
  fieldErrors: Record<string, string>;
  fields: Record<string, string>;
  tags: string[];
}

const scratch = useScratchUploads("profile-uploads");
afterEach(() => {
  env.ADMIN_SECRET = undefined;
});

type Fields = Record<string, string | string[]>;

/** The editor form as a browser sends it: multipart, with an empty file part when no photo was chosen. */
function editRequest(uid: string, fields: Fields, cookie: string | undefined, photo?: { bytes: Uint8Array; type: string; name: string }) {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  }
  body.append(
    "photo",
    photo ? new File([photo.bytes as Uint8Array<ArrayBuffer>], photo.name, { type: photo.type }) : new File([], "", { type: "application/octet-stream" }),
  );
  return new Request(new URL(editPath(uid), ORIGIN), { method: "POST", body, headers: cookie ? { Cookie: cookie } : {} });
}

async function save(uid: string, fields: Fields, cookie?: string, photo?: { bytes: Uint8Array; type: string; name: string }) {
  return settle(() => editAction(routeArgs(editRequest(uid, fields, cookie, photo), { uid })));
}

/** The form as loaded, with changes: what pressing Save sends. */
function formOf(user: { name: string; username: string }, changes: Fields = {}): Fields {
  return { name: user.name, username: user.username, password: "", role: "USER", bio: "", adminPassword: "", ...changes };
}

describe("profile editor: who may open it", () => {
  it("opens for the user themself with their current values and no password", async () => {
    const user = await makeUser({ tags: ["Baker"] });
    const result = await editLoader(routeArgs(getRequest(editPath(user.id), await signedInCookie(user.id)), { uid: user.id }));
    expect(result).toEqual({
      user: { id: user.id, username: user.username, name: user.name, role: "USER", profile: "/images/profile.png", bio: "", tags: ["Baker"], email: null, emailConfirmed: false },
      viewerIsAdmin: false,
      blocked: [],
      muted: [],
      ownProfile: true,
    });
    expect(JSON.stringify(result)).not.toMatch(/password|scrypt/i);
  });

  it("refuses anyone else with 403, and opens for an ADMIN", async () => {
    const owner = await makeUser();
    const other = await makeUser();
    const admin = await makeUser({ role: "ADMIN" });
    const refused = await settle(() => editLoader(routeArgs(getRequest(editPath(owner.id), "x"), { uid: owner.id })));
    expectRedirect(refused, /^\/ReciPals\/Account\/Login\?redirectTo=/);
    const otherCookie = await signedInCookie(other.id);
    const forbidden = await settle(() => editLoader(routeArgs(getRequest(editPath(owner.id), otherCookie), { uid: owner.id })));
    expect((forbidden as Response).status).toBe(403);
    const asAdmin = await editLoader(routeArgs(getRequest(editPath(owner.id), await signedInCookie(admin.id)), { uid: owner.id }));
    expect(asAdmin).toMatchObject({ user: { id: owner.id }, viewerIsAdmin: true });
  });

  it("answers 404 'User not found.' for an unknown user", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    const cookie = await signedInCookie(admin.id);
    const result = await settle(() => editLoader(routeArgs(getRequest(editPath("ghost"), cookie), { uid: "ghost" })));
    expect((result as Response).status).toBe(404);
    expect(await (result as Response).text()).toBe("User not found.");
  });

  it("refuses a save of someone else's profile by URL (403) and writes nothing", async () => {
    const owner = await makeUser({ name: "Owner" });
    const other = await makeUser();
    const result = await save(owner.id, formOf(owner, { name: "Hacked", bio: "pwned" }), await signedInCookie(other.id));
    expect((result as Response).status).toBe(403);
    expect(await getUserProfile(owner.id)).toMatchObject({ name: "Owner", bio: "" });
  });
});

describe("profile editor: saving", () => {
  it("saves name, username, bio and tags in one go and goes back to the profile", async () => {
    const user = await makeUser({ tags: ["Baker"] });
    const cookie = await signedInCookie(user.id);
    const username = `${user.username}_x`.slice(0, 30);
    const result = await save(user.id, formOf(user, { name: "New Name", username, bio: "  I bake bread.  ", tags: ["Vegan", "Home Cook"] }), cookie);
    expectRedirect(result, profilePath(user.id));
    expect(await getUserProfile(user.id)).toMatchObject({
      name: "New Name",
      username,
      bio: "I bake bread.",
      tags: ["Vegan", "Home Cook"],
      role: "USER",
      profile: "/images/profile.png",
    });
  });

  it("keeps the password when the field is empty and changes it when one is typed", async () => {
    const user = await makeUser({ password: "old password" });
    const cookie = await signedInCookie(user.id);
    expectRedirect(await save(user.id, formOf(user), cookie), profilePath(user.id));
    expect((await verifyLogin({ username: user.username, password: "old password" })).ok).toBe(true);
    expectRedirect(await save(user.id, formOf(user, { password: "brand new pw", currentPassword: "old password" }), cookie), profilePath(user.id));
    expect((await verifyLogin({ username: user.username, password: "brand new pw" })).ok).toBe(true);
    expect((await verifyLogin({ username: user.username, password: "old password" })).ok).toBe(false);
  });

  it("refuses a username someone else has, whatever its case, keeping what was typed", async () => {
    const taken = await makeUser();
    const user = await makeUser({ name: "Before" });
    const { status, data } = dataOf<Failure>(
      await save(user.id, formOf(user, { name: "Typed Name", username: taken.username.toUpperCase(), bio: "typed bio", password: "secret1" }), await signedInCookie(user.id)),
    );
    expect(status).toBe(409);
    expect(data.fieldErrors.username).toBe("That username is already taken. Please choose another.");
    expect(data.formError).toBe("Failed to save changes. Please try again.");
    expect(data.fields).toMatchObject({ name: "Typed Name", username: taken.username.toUpperCase(), bio: "typed bio" });
    expect(data.fields).not.toHaveProperty("password");
    expect(await getUserProfile(user.id)).toMatchObject({ name: "Before", username: user.username });
  });

  it("lets a user change the case of their own username", async () => {
    const user = await makeUser();
    expectRedirect(await save(user.id, formOf(user, { username: user.username.toUpperCase() }), await signedInCookie(user.id)), profilePath(user.id));
    expect((await getUserProfile(user.id))?.username).toBe(user.username.toUpperCase());
  });

  it("refuses a fourth tag with the product's message and writes nothing", async () => {
    const user = await makeUser({ tags: ["Baker"] });
    const four = ["Baker", "Vegan", "Halal", "Kosher"];
    const { status, data } = dataOf<Failure>(await save(user.id, formOf(user, { name: "Changed", tags: four }), await signedInCookie(user.id)));
    expect(status).toBe(400);
    expect(data.formError).toBe(TAG_LIMIT_MESSAGE);
    expect(data.tags).toEqual(four);
    expect(await getUserProfile(user.id)).toMatchObject({ name: user.name, tags: ["Baker"] });
  });

  it("refuses an over-long bio or name and an empty username with a message by the field", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const bio = dataOf<Failure>(await save(user.id, formOf(user, { bio: "b".repeat(301) }), cookie));
    expect(bio.status).toBe(400);
    expect(bio.data.fieldErrors.bio).toBe("Bio must be at most 300 characters.");
    expect(bio.data.fields.bio).toBe("b".repeat(301));
    const name = dataOf<Failure>(await save(user.id, formOf(user, { name: "n".repeat(61) }), cookie));
    expect(name.data.fieldErrors.name).toBe("Name must be at most 60 characters.");
    const username = dataOf<Failure>(await save(user.id, formOf(user, { username: "" }), cookie));
    expect(username.data.fieldErrors.username).toBe("Please fill in all fields");
    expect(await getUserProfile(user.id)).toMatchObject({ name: user.name, username: user.username, bio: "" });
  });
});

describe("profile editor: becoming ADMIN", () => {
  it("grants ADMIN with the right admin password and says so on the profile", async () => {
    env.ADMIN_SECRET = SECRET;
    const user = await makeUser();
    const result = await save(user.id, formOf(user, { role: "ADMIN", adminPassword: SECRET, bio: "now admin" }), await signedInCookie(user.id));
    expectRedirect(result, `${profilePath(user.id)}?admin=granted`);
    expect(await getUserProfile(user.id)).toMatchObject({ role: "ADMIN", bio: "now admin" });
  });

  it("refuses a wrong or missing admin password: role stays USER, nothing saved, choice back to User", async () => {
    env.ADMIN_SECRET = SECRET;
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    for (const adminPassword of ["wrong", ""]) {
      const { status, data } = dataOf<Failure>(await save(user.id, formOf(user, { role: "ADMIN", adminPassword, name: "Typed" }), cookie));
      expect(status).toBe(403);
      expect(data.formError).toBe("Incorrect admin password");
      expect(data.fields).toMatchObject({ role: "USER", name: "Typed" });
      expect(data.fields).not.toHaveProperty("adminPassword");
    }
    // A forged form without the field at all.
    const forged = new FormData();
    for (const [k, v] of Object.entries({ name: user.name, username: user.username, role: "ADMIN" })) forged.append(k, v);
    const request = new Request(new URL(editPath(user.id), ORIGIN), { method: "POST", body: forged, headers: { Cookie: cookie } });
    expect(dataOf<Failure>(await settle(() => editAction(routeArgs(request, { uid: user.id })))).data.formError).toBe("Incorrect admin password");
    expect(await getUserProfile(user.id)).toMatchObject({ role: "USER", name: user.name });
  });

  it("refuses self-elevation with a clear message when the server has no admin password", async () => {
    const user = await makeUser();
    const { status, data } = dataOf<Failure>(await save(user.id, formOf(user, { role: "ADMIN", adminPassword: "anything" }), await signedInCookie(user.id)));
    expect(status).toBe(403);
    expect(data.formError).toMatch(/no admin password/i);
    expect((await getUserProfile(user.id))?.role).toBe("USER");
  });

  it("lets an ADMIN change anyone's role freely", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    const user = await makeUser();
    const cookie = await signedInCookie(admin.id);
    expectRedirect(await save(user.id, formOf(user, { role: "ADMIN" }), cookie), profilePath(user.id));
    expect((await getUserProfile(user.id))?.role).toBe("ADMIN");
    expectRedirect(await save(user.id, formOf(user, { role: "USER" }), cookie), profilePath(user.id));
    expect((await getUserProfile(user.id))?.role).toBe("USER");
  });
});

describe("profile editor: the last ADMIN", () => {
  it("refuses the only ADMIN giving up the role, changes nothing, and allows it once another ADMIN exists", async () => {
    const admin = await makeUser({ role: "ADMIN" });
    await db.updateTable("users").set({ role: "USER" }).where("role", "=", "ADMIN").where("id", "<>", admin.id).execute();
    const cookie = await signedInCookie(admin.id);
    const { status, data } = dataOf<Failure>(await save(admin.id, formOf(admin, { role: "USER", bio: "stepping down" }), cookie));
    expect(status).toBe(409);
    expect(data.fieldErrors.role).toBe("You cannot remove the last admin's role.");
    expect(data.fields).toMatchObject({ role: "ADMIN", bio: "stepping down" });
    expect(await getUserProfile(admin.id)).toMatchObject({ role: "ADMIN", bio: "" });

    await makeUser({ role: "ADMIN" });
    expectRedirect(await save(admin.id, formOf(admin, { role: "USER", bio: "stepping down" }), cookie), profilePath(admin.id));
    expect(await getUserProfile(admin.id)).toMatchObject({ role: "USER", bio: "stepping down" });
  });
});

describe("profile editor: photo", () => {
  it("stores a new photo through the image pipeline and keeps it when none is sent", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#c2410c" } }).png().toBuffer();
    expectRedirect(await save(user.id, formOf(user), cookie, { bytes: png, type: "image/png", name: "me.png" }), profilePath(user.id));
    const url = (await getUserProfile(user.id))?.profile ?? "";
    expect(url).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    expect(fs.existsSync(path.join(scratch.dir, url.slice("/uploads/".length)))).toBe(true);
    expectRedirect(await save(user.id, formOf(user, { bio: "still me" }), cookie), profilePath(user.id));
    expect((await getUserProfile(user.id))?.profile).toBe(url);
  });

  it("counts the photo against the person's uploads: past the hour's limit it is refused with 429, what was typed kept, nothing saved", async () => {
    const user = await makeUser();
    const now = Date.now();
    await db
      .insertInto("rate_events")
      .values(Array.from({ length: RATE_LIMITS.uploads.limit }, () => ({ id: crypto.randomUUID(), bucket: RATE_LIMITS.uploads.bucket, key: user.id, at: now })))
      .execute();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#0369a1" } }).png().toBuffer();
    const stored = () => fs.readdirSync(scratch.dir).sort();
    const before = stored();
    const { status, data } = dataOf<Failure>(await save(user.id, formOf(user, { name: "Typed" }), await signedInCookie(user.id), { bytes: png, type: "image/png", name: "me.png" }));
    expect(status).toBe(429);
    expect(data.fieldErrors.photo).toMatch(/many times in a short while/);
    expect(data.fields.name).toBe("Typed");
    expect(await getUserProfile(user.id)).toMatchObject({ name: user.name, profile: "/images/profile.png" });
    expect(stored()).toEqual(before);
  });

  it("refuses a file that is not an image with the product's message, keeping what was typed", async () => {
    const user = await makeUser();
    const { status, data } = dataOf<Failure>(
      await save(user.id, formOf(user, { name: "Typed" }), await signedInCookie(user.id), {
        bytes: new TextEncoder().encode("not an image"),
        type: "image/png",
        name: "fake.png",
      }),
    );
    expect(status).toBe(400);
    expect(data.formError).toBe("Failed to process the image. Please try again.");
    expect(data.fields.name).toBe("Typed");
    expect(await getUserProfile(user.id)).toMatchObject({ name: user.name, profile: "/images/profile.png" });
  });
});
