import { describe, expect, it } from "vitest";

import { TAG_LIMIT_MESSAGE } from "~/lib/tags";
import { action as signupAction, loader as signupLoader } from "~/routes/ReciPals.Account.Signup";
import {
  action as tagsAction,
  loader as tagsLoader,
} from "~/routes/ReciPals.Account.SignupTags";
import { db } from "~/server/db/connection.server";
import { verifyPassword } from "~/server/auth/password.server";
import { getUserTags } from "~/server/queries/users.server";
import { getUser } from "~/server/auth/session.server";

import {
  cookiesFrom,
  countRows,
  dataOf,
  expectRedirect,
  formRequest,
  getRequest,
  makeUser,
  routeArgs,
  settle,
  uniqueUsername,
} from "../support/app";

const SIGNUP = "/ReciPals/Account/Signup";
const TAGS = "/ReciPals/Account/SignupTags";

type Failure = { formError: string | null; fieldErrors: Record<string, string>; fields: Record<string, string> };

function details(overrides: Record<string, string> = {}) {
  return { name: "Ada Cook", username: uniqueUsername("ada"), password: "s3cret pass", verifyPassword: "s3cret pass", ...overrides };
}

async function signup(fields: Record<string, string>, cookie?: string) {
  return settle(() => signupAction(routeArgs(formRequest(SIGNUP, fields, cookie))));
}

/** Step one done: the draft cookie for these details. */
async function draftCookie(fields = details()) {
  const response = expectRedirect(await signup(fields), TAGS);
  return { cookie: cookiesFrom(response), fields };
}

describe("sign-up, step one", () => {
  it("refuses empty fields with 'Please fill in all fields', keeping what was typed but never passwords", async () => {
    const before = await countRows("users");
    const { status, data } = dataOf<Failure>(await signup(details({ name: "", password: "typed" })));
    expect(status).toBe(400);
    expect(data.formError).toBe("Please fill in all fields");
    expect(data.fieldErrors.name).toBe("Please fill in all fields");
    expect(data.fields.username).toMatch(/^ada_/);
    expect(data.fields).not.toHaveProperty("password");
    expect(data.fields).not.toHaveProperty("verifyPassword");
    expect(await countRows("users")).toBe(before);
  });

  it("refuses mismatched passwords", async () => {
    const { status, data } = dataOf<Failure>(await signup(details({ verifyPassword: "other" })));
    expect(status).toBe(400);
    expect(data.formError).toBe("Passwords don't match");
    expect(data.fieldErrors.verifyPassword).toBe("Passwords don't match");
  });

  it("refuses a taken username whatever its case", async () => {
    const existing = await makeUser();
    const { status, data } = dataOf<Failure>(await signup(details({ username: existing.username.toUpperCase() })));
    expect(status).toBe(409);
    expect(data.fieldErrors.username).toBe("That username is already taken. Please choose another.");
  });

  it.each([
    ["name", "n".repeat(61), "Name must be at most 60 characters."],
    ["username", "u".repeat(31), "Username must be at most 30 characters."],
    ["username", "ab", "Username must be at least 3 characters."],
    ["username", "has space", "Username may use only letters, digits, _ and ."],
    ["password", "p".repeat(201), "Password must be at most 200 characters."],
  ])("refuses an invalid %s with its message", async (field, value, message) => {
    const overrides: Record<string, string> = { [field]: value };
    if (field === "password") overrides.verifyPassword = value;
    const { status, data } = dataOf<Failure>(await signup(details(overrides)));
    expect(status).toBe(400);
    expect(data.fieldErrors[field]).toBe(message);
  });

  it("holds the details in a signed cookie with the password only as a hash", async () => {
    const before = await countRows("users");
    const { cookie, fields } = await draftCookie();
    expect(await countRows("users")).toBe(before);
    const value = decodeURIComponent(cookie.split("recipals_signup=")[1]!.split(";")[0]!);
    const payload = Buffer.from(value.split(".")[0]!, "base64").toString("utf8");
    expect(payload).toContain(fields.username);
    expect(payload).not.toContain(fields.password);
    expect(payload).toMatch(/scrypt\$/);
    const loaded = await signupLoader(routeArgs(getRequest(SIGNUP, cookie)));
    expect(loaded).toEqual({ name: fields.name, username: fields.username, email: "" });
  });
});

describe("sign-up, step two (tags)", () => {
  it("sends people without a held draft, or with a tampered one, back to Signup", async () => {
    expectRedirect(await settle(() => tagsLoader(routeArgs(getRequest(TAGS)))), SIGNUP);
    const { cookie } = await draftCookie();
    const tampered = cookie.replace(/recipals_signup=([^;]{10})/, "recipals_signup=AAAAAAAAAA");
    expectRedirect(await settle(() => tagsLoader(routeArgs(getRequest(TAGS, tampered)))), SIGNUP);
    expectRedirect(
      await settle(() => tagsAction(routeArgs(formRequest(TAGS, { tags: ["Baker"] }, tampered)))),
      SIGNUP,
    );
    expect(await settle(() => tagsLoader(routeArgs(getRequest(TAGS, cookie))))).toBeNull();
  });

  it("refuses a fourth tag on the server and writes nothing", async () => {
    const { cookie } = await draftCookie();
    const before = await countRows("users");
    const tags = ["Baker", "Vegan", "Halal", "Kosher"];
    const { status, data } = dataOf<{ formError: string; tags: string[] }>(
      await settle(() => tagsAction(routeArgs(formRequest(TAGS, { tags }, cookie)))),
    );
    expect(status).toBe(400);
    expect(data.formError).toBe(TAG_LIMIT_MESSAGE);
    expect(data.tags).toEqual(tags);
    expect(await countRows("users")).toBe(before);
  });

  it("refuses a tag that is not in the catalogue", async () => {
    const { cookie } = await draftCookie();
    const { status, data } = dataOf<{ formError: string }>(
      await settle(() => tagsAction(routeArgs(formRequest(TAGS, { tags: ["<script>"] }, cookie)))),
    );
    expect(status).toBe(400);
    expect(data.formError).toBe("Please choose tags from the list.");
  });

  it("creates the account with the product's defaults, signs in, clears the draft and opens the profile", async () => {
    const { cookie, fields } = await draftCookie();
    const response = expectRedirect(
      await settle(() => tagsAction(routeArgs(formRequest(TAGS, { tags: ["Vegan", "Baker"] }, cookie)))),
      /^\/ReciPals\/Account\/Profile\/[0-9a-f-]{36}$/,
    );
    const jar = cookiesFrom(response, cookie);
    expect(jar).not.toContain("recipals_signup=");
    const user = await getUser(getRequest("/", jar));
    expect(user).toMatchObject({ username: fields.username, name: fields.name, role: "USER", profile: "/images/profile.png" });
    expect(response.headers.get("Location")).toBe(`/ReciPals/Account/Profile/${user!.id}`);
    expect(await getUserTags(user!.id)).toEqual(["Vegan", "Baker"]);
    const row = await db.selectFrom("users").select(["bio", "password_hash"]).where("id", "=", user!.id).executeTakeFirstOrThrow();
    expect(row.bio).toBe("");
    expect(await verifyPassword(fields.password, row.password_hash)).toBe(true);
  });

  it("accepts no tags at all", async () => {
    const { cookie } = await draftCookie();
    expectRedirect(await settle(() => tagsAction(routeArgs(formRequest(TAGS, {}, cookie)))), /Profile/);
  });

  it("refuses the draft when someone took the username meanwhile", async () => {
    const { cookie, fields } = await draftCookie();
    await makeUser({ username: fields.username });
    const before = await countRows("users");
    const { status, data } = dataOf<{ formError: string }>(
      await settle(() => tagsAction(routeArgs(formRequest(TAGS, { tags: ["Baker"] }, cookie)))),
    );
    expect(status).toBe(409);
    expect(data.formError).toBe("That username is already taken. Please choose another.");
    expect(await countRows("users")).toBe(before);
  });
});
