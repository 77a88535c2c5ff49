import sharp from "sharp";
import { expect, test, type Locator, type Page } from "@playwright/test";

import { createUser, failOnBrowserErrors, openPage, pickedFile, readDb, SEEDED_USER, signInAs, signInNewUser, signInWithForm } from "../support/e2e";

// Profiles, follows and the profile editor. Every test makes its own users (written straight
// into the database, signed in with a session fixture: sign-up and sign-in have their own
// tests in auth.spec.ts), so counts are predictable while other workers use the same server.

const ADMIN_SECRET = "e2e-admin-secret"; // playwright.config.ts gives the server this ADMIN_SECRET
const PASSWORD = "a good password";

interface Account {
  id: string;
  username: string;
  password?: string;
}

const profileUrl = (id: string) => `/ReciPals/Account/Profile/${id}`;

failOnBrowserErrors();

/** A fresh account (made in the database, not through sign-up), signed in and left on its new profile. */
async function signUp(page: Page, prefix: string, { name = "Fresh Cook", tags = [] as string[], password = undefined as string | undefined } = {}): Promise<Account> {
  const account = await signInNewUser(page, prefix, { name, tags, password });
  await page.goto(profileUrl(account.id));
  await expect(page.getByRole("heading", { level: 1, name: account.username })).toBeVisible();
  return account;
}

async function signOut(page: Page) {
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
}

const counts = (page: Page) => page.getByRole("list", { name: "Counts" });

/**
 * Clicks a follow-action button and waits until the server has answered: with JavaScript the
 * page updates optimistically at once, and navigating away then could cancel the request.
 */
async function submitFollow(page: Page, button: Locator) {
  const answered = page.waitForResponse(
    (response) => response.request().method() === "POST" && response.url().includes("/ReciPals/Account/Follow/"),
  );
  await button.click();
  await answered;
}

async function expectCounts(page: Page, posts: string, followers: string, following: string) {
  await expect(counts(page).getByRole("link")).toHaveText([posts, followers, following]);
}

test.describe("profile page", () => {
  test("own profile: counts, Edit Profile, no Follow, tabs and empty states", async ({ page }) => {
    const me = await signUp(page, "own", { name: "Own Cook", tags: ["Baker", "Vegan"] });
    await expect(page.getByRole("heading", { level: 1, name: me.username })).toBeVisible();
    await expect(page.getByText("Own Cook")).toBeVisible();
    await expect(page.getByRole("list", { name: "Tags" }).getByRole("listitem")).toHaveText(["Baker", "Vegan"]);
    await expectCounts(page, "0 posts", "0 followers", "0 following");
    await expect(page.getByRole("link", { name: "Edit Profile" })).toHaveAttribute("href", `${profileUrl(me.id)}/Edit`);
    await expect(page.getByRole("button", { name: /^(Follow|Unfollow)$/ })).toHaveCount(0);

    const tabs = page.getByRole("navigation", { name: "Profile sections" });
    await expect(tabs.getByRole("link", { name: "My Recipes" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByText("No recipes yet")).toBeVisible();
    await tabs.getByRole("link", { name: "Saved" }).click();
    await expect(page).toHaveURL(`${profileUrl(me.id)}?tab=saved`);
    await expect(tabs.getByRole("link", { name: "Saved" })).toHaveAttribute("aria-current", "page");
    await expect(tabs.getByRole("link", { name: "My Recipes" })).not.toHaveAttribute("aria-current", "page");
    await expect(page.getByText("No saved recipes yet")).toBeVisible();
  });

  test("someone else's profile: Follow, no Edit Profile, thumbnails open the post viewer", async ({ page }) => {
    await signUp(page, "visitor");
    await page.goto(profileUrl(SEEDED_USER.id));
    await expect(page.getByRole("heading", { level: 1, name: SEEDED_USER.username })).toBeVisible();
    await expect(page.getByRole("button", { name: "Follow" })).toHaveAttribute("aria-pressed", "false");
    await expect(page.getByRole("link", { name: "Edit Profile" })).toHaveCount(0);
    await expect(counts(page).getByRole("link").first()).toHaveText(/^\d+ posts?$/);
    // Someone else's recipes are "Recipes", not "My Recipes".
    await expect(page.getByRole("list", { name: "My Recipes" })).toHaveCount(0);
    const thumbs = page.getByRole("list", { name: "Recipes", exact: true }).getByRole("link");
    await expect(thumbs.first()).toHaveAttribute("href", new RegExp(`^/ReciPals/Account/Profile/${SEEDED_USER.id}/Posts/.+`));
    await expect(page.getByRole("list", { name: "Recipes", exact: true }).getByRole("link", { name: /./ }).last()).toHaveAttribute(
      "href",
      `/ReciPals/Account/Profile/${SEEDED_USER.id}/Posts/jd-P1`,
    );
  });

  test("a long grid comes 24 posts a page: Load more shows the next ones, newest first", async ({ page, javaScriptEnabled }) => {
    await signUp(page, "pager");
    await openPage(page, profileUrl("recipeBot"));
    const newestFirst = readDb((db) => db.prepare("select id from posts where created_by = 'recipeBot' order by seq desc limit 48").pluck().all() as string[]);
    const thumbs = page.getByRole("list", { name: "Recipes", exact: true }).getByRole("link");
    const shown = async () => (await thumbs.evaluateAll((links) => links.map((link) => link.getAttribute("href")))).map((href) => href?.split("/").pop());
    await expect(thumbs).toHaveCount(24);
    expect(await shown()).toEqual(newestFirst.slice(0, 24));
    // Every post is counted, not only the page's (the bot's 302, less any another test deleted).
    const all = readDb((db) => db.prepare("select count(*) from posts where created_by = 'recipeBot'").pluck().get() as number);
    expect(all).toBeGreaterThan(290);
    await expect(counts(page).getByRole("link").first()).toHaveText(`${all} posts`);
    await page.getByRole("link", { name: "Load more" }).click();
    if (javaScriptEnabled) {
      // Appended in place: the same address, 48 squares.
      await expect(thumbs).toHaveCount(48);
      expect(page.url()).not.toContain("page=");
      expect(await shown()).toEqual(newestFirst);
    } else {
      await expect(page).toHaveURL(`${profileUrl("recipeBot")}?page=2`);
      await expect(thumbs).toHaveCount(24);
      expect(await shown()).toEqual(newestFirst.slice(24, 48));
    }
    await expect(page.getByRole("link", { name: "Load more" })).toHaveAttribute("href", `${profileUrl("recipeBot")}?page=3`);
  });

  test("the Saved tab links a saved recipe to its post", async ({ page }) => {
    const me = await signUp(page, "saver");
    // Saving is another page's job; its action is used directly here.
    const saved = await page.request.post("/ReciPals/Recipes/recipeBot-R1/Save", { form: { intent: "save", _fetcher: "1" } });
    expect(saved.ok()).toBe(true);
    await page.goto(`${profileUrl(me.id)}?tab=saved`);
    const item = page.getByRole("list", { name: "Saved" }).getByRole("link");
    await expect(item).toHaveCount(1);
    await expect(item).toHaveAttribute("href", "/ReciPals/Account/Profile/recipeBot/Posts/recipeBot-P1");
  });

  test("an unknown user is a 404 page saying 'User not found.'", async ({ page }) => {
    await signUp(page, "lost");
    const response = await page.goto(profileUrl("no-such-user"));
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("alert")).toHaveText("User not found.");
  });
});

test.describe("follow, unfollow, remove follower", () => {
  test("follow and unfollow from the profile update both users' counts", async ({ page }) => {
    const target = await createUser("star");
    const fan = await signUp(page, "fan");

    await page.goto(profileUrl(target.id));
    await expectCounts(page, "0 posts", "0 followers", "0 following");
    const followButton = page.getByRole("button", { name: "Follow", exact: true });
    await expect(followButton).toHaveAttribute("aria-pressed", "false");
    await submitFollow(page, followButton);
    const unfollowButton = page.getByRole("button", { name: "Unfollow" });
    await expect(unfollowButton).toHaveAttribute("aria-pressed", "true");
    await expectCounts(page, "0 posts", "1 follower", "0 following");
    // Without JavaScript the page comes back at the Follow button (docs/rules.md#without-javascript).
    await expect(page).toHaveURL(new RegExp(`${profileUrl(target.id)}(#follow-${target.id})?$`));

    await page.goto(profileUrl(fan.id));
    await expectCounts(page, "0 posts", "0 followers", "1 following");

    await page.goto(profileUrl(target.id));
    await submitFollow(page, page.getByRole("button", { name: "Unfollow" }));
    await expect(page.getByRole("button", { name: "Follow", exact: true })).toHaveAttribute("aria-pressed", "false");
    await expectCounts(page, "0 posts", "0 followers", "0 following");
    await page.goto(profileUrl(fan.id));
    await expectCounts(page, "0 posts", "0 followers", "0 following");
  });

  test("own dialogs: Remove a follower and Unfollow someone, both sides' counts follow", async ({ page }) => {
    const other = await createUser("other");
    const me = await signUp(page, "me");
    // I follow `other` …
    await page.goto(profileUrl(other.id));
    await submitFollow(page, page.getByRole("button", { name: "Follow", exact: true }));
    await expect(page.getByRole("button", { name: "Unfollow" })).toBeVisible();
    // … and `other` follows me.
    await signInAs(page, other);
    await page.goto(profileUrl(me.id));
    await submitFollow(page, page.getByRole("button", { name: "Follow", exact: true }));
    await expect(page.getByRole("button", { name: "Unfollow" })).toBeVisible();

    await signInAs(page, me);
    await page.goto(profileUrl(me.id));
    await expectCounts(page, "0 posts", "1 follower", "1 following");

    await counts(page).getByRole("link", { name: "1 follower" }).click();
    await expect(page).toHaveURL(`${profileUrl(me.id)}/Followers`);
    const followers = page.getByRole("dialog", { name: "Followers" });
    await expect(followers.getByRole("link", { name: new RegExp(other.username) })).toBeVisible();
    await expect(followers.getByRole("button")).toHaveText(["Remove"]);
    await submitFollow(page, followers.getByRole("button", { name: "Remove" }));
    await expect(followers.getByText("No followers yet")).toBeVisible();
    await followers.getByRole("link", { name: "Close" }).click();
    await expect(page).toHaveURL(profileUrl(me.id));
    await expectCounts(page, "0 posts", "0 followers", "1 following");

    await counts(page).getByRole("link", { name: "1 following" }).click();
    const following = page.getByRole("dialog", { name: "Following" });
    await expect(following.getByRole("button")).toHaveText(["Unfollow"]);
    await submitFollow(page, following.getByRole("button", { name: "Unfollow" }));
    await expect(following.getByText("Not following anyone yet")).toBeVisible();
    await following.getByRole("link", { name: "Close" }).click();
    await expectCounts(page, "0 posts", "0 followers", "0 following");

    // The other side agrees: `other` lost a following and a follower.
    await page.goto(profileUrl(other.id));
    await expectCounts(page, "0 posts", "0 followers", "0 following");
  });

  test("on someone else's profile, follower rows show Follow / Following, never on the viewer's own row", async ({ page }) => {
    const star = await createUser("celeb");
    const friend = await signUp(page, "friend");
    await page.goto(profileUrl(star.id));
    await submitFollow(page, page.getByRole("button", { name: "Follow", exact: true }));
    await expect(page.getByRole("button", { name: "Unfollow" })).toBeVisible();
    const viewer = await signUp(page, "viewer");
    await page.goto(profileUrl(star.id));
    await submitFollow(page, page.getByRole("button", { name: "Follow", exact: true }));
    await expect(page.getByRole("button", { name: "Unfollow" })).toBeVisible();
    await expectCounts(page, "0 posts", "2 followers", "0 following");

    await counts(page).getByRole("link", { name: "2 followers" }).click();
    const dialog = page.getByRole("dialog", { name: "Followers" });
    const friendRow = dialog.getByRole("listitem").filter({ hasText: friend.username });
    const ownRow = dialog.getByRole("listitem").filter({ hasText: viewer.username });
    await expect(ownRow.getByRole("button")).toHaveCount(0);
    await expect(friendRow.getByRole("button", { name: "Follow" })).toHaveAttribute("aria-pressed", "false");
    await expect(dialog.getByRole("button", { name: "Remove" })).toHaveCount(0);

    await submitFollow(page, friendRow.getByRole("button", { name: "Follow" }));
    await expect(friendRow.getByRole("button", { name: "Following" })).toHaveAttribute("aria-pressed", "true");
    await expect(page).toHaveURL(new RegExp(`${profileUrl(star.id)}/Followers(#follow-${friend.id})?$`));

    // A row's name leads to that profile and closes the dialog.
    await friendRow.getByRole("link", { name: new RegExp(friend.username) }).click();
    await expect(page).toHaveURL(profileUrl(friend.id));
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expectCounts(page, "0 posts", "1 follower", "1 following");
    await expect(page.getByRole("button", { name: "Unfollow" })).toHaveAttribute("aria-pressed", "true");
  });
});

test.describe("profile editor", () => {
  test("saves name, username, bio and tags, then shows them on the profile", async ({ page }) => {
    const me = await signUp(page, "editor", { tags: ["Baker"] });
    await page.getByRole("link", { name: "Edit Profile" }).click();
    await expect(page).toHaveURL(`${profileUrl(me.id)}/Edit`);
    for (const label of ["Name", "Username", "Password", "Role", "Bio", "Profile Photo"]) {
      await expect(page.getByLabel(label, { exact: true })).toBeVisible();
    }
    await expect(page.getByLabel("Bio")).toHaveAttribute("rows", "2");
    await expect(page.getByLabel("Password", { exact: true })).toHaveAttribute("type", "text");
    await expect(page.getByLabel("Password", { exact: true })).toHaveValue("");
    await expect(page.getByLabel("Admin Password")).toBeHidden();
    for (const name of ["Signout", "Save"]) await expect(page.getByRole("button", { name, exact: true })).toBeVisible();
    await expect(page.getByRole("link", { name: "Cancel" })).toBeVisible();

    const newName = `${me.username}_2`.slice(0, 30);
    await page.getByLabel("Name", { exact: true }).fill("Edited Cook");
    await page.getByLabel("Username").fill(newName);
    await page.getByLabel("Bio").fill("Bread and buns.");
    await page.getByLabel("Baker", { exact: true }).uncheck({ force: true });
    await page.getByLabel("Vegan", { exact: true }).check({ force: true });
    await page.getByLabel("Halal", { exact: true }).check({ force: true });
    await page.getByRole("button", { name: "Save" }).click();

    await expect(page).toHaveURL(profileUrl(me.id));
    await expect(page.getByRole("heading", { level: 1, name: newName })).toBeVisible();
    await expect(page.getByText("Edited Cook")).toBeVisible();
    await expect(page.getByText("Bread and buns.")).toBeVisible();
    await expect(page.getByRole("list", { name: "Tags" }).getByRole("listitem")).toHaveText(["Vegan", "Halal"]);
  });

  test("Cancel goes back without saving; a taken username is refused with everything typed kept", async ({ page }) => {
    const me = await signUp(page, "canceler");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Name", { exact: true }).fill("Not Saved");
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(profileUrl(me.id));
    await expect(page.getByText("Not Saved")).toHaveCount(0);

    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Name", { exact: true }).fill("Typed Name");
    await page.getByLabel("Bio").fill("Typed bio");
    await page.getByLabel("Username").fill(SEEDED_USER.username.toUpperCase());
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("That username is already taken. Please choose another.")).toBeVisible();
    await expect(page.getByRole("alert").first()).toHaveText("Failed to save changes. Please try again.");
    await expect(page.getByLabel("Username")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Typed Name");
    await expect(page.getByLabel("Bio")).toHaveValue("Typed bio");
  });

  test("a new password works for the next sign-in; the old one does not", async ({ page }) => {
    // Five deliberately slow password hashes (sign-up, the save's check and new hash, two sign-ins,
    // up to a few seconds each on two busy cores): three times the usual time.
    test.slow();
    // The subject is signing in with a password: the account gets a real hash of PASSWORD first.
    const me = await signUp(page, "rekey", { password: PASSWORD });
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Password", { exact: true }).fill("my new password");
    await page.getByLabel("Current Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(profileUrl(me.id), { timeout: 20_000 });
    await signOut(page);

    await page.goto("/ReciPals/Account/Login");
    await page.getByLabel("Username").fill(me.username);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toHaveText("Invalid username or password. Please try again.");
    await signInWithForm(page, { username: me.username, password: "my new password" });
  });

  test("a fourth tag is refused with SPEC's message", async ({ page, javaScriptEnabled }) => {
    const me = await signUp(page, "tagger", { tags: ["Baker", "Vegan", "Halal"] });
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Kosher", { exact: true }).click({ force: true });
    const message = "You can only select up to 3 tags. Please deselect a tag before selecting a new one.";
    if (javaScriptEnabled) {
      // Undone at once in the browser.
      await expect(page.getByText(message)).toBeVisible();
      await expect(page.getByLabel("Kosher", { exact: true })).not.toBeChecked();
    } else {
      await page.getByRole("button", { name: "Save" }).click();
      await expect(page.getByRole("alert").first()).toHaveText(message);
      await expect(page.getByLabel("Kosher", { exact: true })).toBeChecked();
    }
    await page.goto(profileUrl(me.id));
    await expect(page.getByRole("list", { name: "Tags" }).getByRole("listitem")).toHaveText(["Baker", "Vegan", "Halal"]);
  });

  test("Admin Password appears only while Admin is chosen (CSS only)", async ({ page }) => {
    const me = await signUp(page, "chooser");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await expect(page.getByLabel("Admin Password")).toBeHidden();
    await page.getByLabel("Role").selectOption("ADMIN");
    await expect(page.getByLabel("Admin Password")).toBeVisible();
    await page.getByLabel("Role").selectOption("USER");
    await expect(page.getByLabel("Admin Password")).toBeHidden();
  });

  test("a wrong admin password is refused and the role stays USER", async ({ page }) => {
    const me = await signUp(page, "wannabe");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Bio").fill("kept bio");
    await page.getByLabel("Role").selectOption("ADMIN");
    await page.getByLabel("Admin Password").fill("not-the-secret");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").first()).toHaveText("Incorrect admin password");
    await expect(page.getByLabel("Role")).toHaveValue("USER");
    await expect(page.getByLabel("Bio")).toHaveValue("kept bio");
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);
    expect(readDb((db) => db.prepare("select role from users where id = ?").pluck().get(me.id))).toBe("USER");
    expect(await page.content()).not.toContain(ADMIN_SECRET);
  });

  test("the right admin password grants ADMIN", async ({ page }) => {
    const me = await signUp(page, "promoted");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Role").selectOption("ADMIN");
    await page.getByLabel("Admin Password").fill(ADMIN_SECRET);
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(`${profileUrl(me.id)}?admin=granted`);
    await expect(page.getByText("Admin access granted!")).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toBeVisible();
    expect(readDb((db) => db.prepare("select role from users where id = ?").pluck().get(me.id))).toBe("ADMIN");
  });

  test("a new profile photo is previewed and stored through the image pipeline", async ({ page, javaScriptEnabled }) => {
    const me = await signUp(page, "photo");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    const preview = page.getByRole("img", { name: "Profile photo preview" });
    await expect(preview).toHaveAttribute("src", "/images/profile.png");
    const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: "#2b7a0b" } }).png().toBuffer();
    await page.getByLabel("Profile Photo").setInputFiles(pickedFile("me.png", png));
    if (javaScriptEnabled) await expect(preview).toHaveAttribute("src", /^blob:/);
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page).toHaveURL(profileUrl(me.id));
    const stored = readDb((db) => db.prepare("select profile from users where id = ?").pluck().get(me.id)) as string;
    expect(stored).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
    await expect(page.locator(`img[src="${stored}"]`).first()).toBeVisible();
  });

  test("a file that is not an image is refused with SPEC's message", async ({ page }) => {
    const me = await signUp(page, "badphoto");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByLabel("Name", { exact: true }).fill("Kept Name");
    await page
      .getByLabel("Profile Photo")
      .setInputFiles(pickedFile("notes.png", Buffer.from("this is not a picture")));
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByRole("alert").first()).toHaveText("Failed to process the image. Please try again.");
    await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Kept Name");
  });

  test("Signout signs out", async ({ page }) => {
    const me = await signUp(page, "leaver");
    await page.goto(`${profileUrl(me.id)}/Edit`);
    await page.getByRole("button", { name: "Signout", exact: true }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Home$/);
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Profile" })).toHaveAttribute(
      "href",
      "/ReciPals/Account/Login",
    );
  });

  test("someone else's editor is refused by the server (403)", async ({ page }) => {
    await signUp(page, "snoop");
    const response = await page.goto(`${profileUrl(SEEDED_USER.id)}/Edit`);
    expect(response?.status()).toBe(403);
    await expect(page.getByRole("alert")).toHaveText("You may only edit your own profile.");
    // A forged post is refused as well.
    const forged = await page.request.post(`${profileUrl(SEEDED_USER.id)}/Edit`, {
      multipart: { name: "Hacked", username: SEEDED_USER.username, role: "USER", bio: "", password: "" },
    });
    expect(forged.status()).toBe(403);
    expect(readDb((db) => db.prepare("select name from users where id = ?").pluck().get(SEEDED_USER.id))).not.toBe("Hacked");
  });
});
