import { expect, test, type Page } from "@playwright/test";

import { ADMIN, failOnBrowserErrors, openMoreMenu, openPage, signInAs, signInNewUser } from "../support/e2e";

// Reports and moderation (docs/rules.md#reports-and-moderation), with JavaScript on and off: a
// person reports a recipe and its author, an admin dismisses one group in the queue and suspends
// the author from the other; the reporter is told, the author's profile is gone for others and the
// author cannot sign in.

failOnBrowserErrors();

async function sendReport(page: Page, reason: string, text: string) {
  await page.getByRole("radio", { name: reason }).check();
  await page.getByLabel("What happened (optional)").fill(text);
  await page.getByRole("button", { name: "Send report" }).click();
  await expect(page.getByRole("status")).toHaveText("Thanks — an admin will look at it.");
}

test("report a recipe and a person; an admin dismisses one and suspends the other", async ({ page, browser, javaScriptEnabled }) => {
  // Three people in three browsers: more than the default 30 s on two busy cores.
  test.slow();
  const reporter = await signInNewUser(page, "reporter");
  const authorContext = await browser.newContext({ javaScriptEnabled });
  const adminContext = await browser.newContext({ javaScriptEnabled });
  try {
    const authorPage = await authorContext.newPage();
    const author = await signInNewUser(authorPage, "spammer", { password: "spam spam spam" });
    const dish = `Miracle pills ${author.username}`;
    const created = await authorPage.request.post("/api/recipes", {
      data: { name: dish, description: "Buy now.", serves: 1, steps: ["Buy."], ingredients_sec: [{ title: "Main", ingredients: ["1 pill"] }] },
    });
    expect(created.status()).toBe(201);
    const { post_id: postId } = (await created.json()) as { post_id: string };

    // The recipe, reported from the post viewer; the person, from their profile.
    await openPage(page, `/ReciPals/Account/Profile/${author.id}/Posts/${postId}`);
    await page.getByRole("link", { name: "Report this recipe" }).click();
    await expect(page.getByRole("heading", { name: "Report a recipe" })).toBeVisible();
    await sendReport(page, "Spam", "Selling pills, not cooking.");
    await openPage(page, `/ReciPals/Account/Profile/${author.id}`);
    await openMoreMenu(page);
    await page.getByRole("link", { name: `Report ${author.username}` }).click();
    await expect(page.getByRole("heading", { name: "Report a person" })).toBeVisible();
    await sendReport(page, "Spam", "Every post is an advert.");

    // The admin's queue: one group per target, each with its reason and text.
    const adminPage = await adminContext.newPage();
    await signInAs(adminPage, { username: ADMIN.username });
    await openPage(adminPage, "/ReciPals/Account/Admin/Reports");
    const recipeGroup = adminPage.getByRole("listitem").filter({ hasText: dish }).filter({ has: adminPage.getByRole("button", { name: "Dismiss" }) });
    await expect(recipeGroup).toContainText("1 report: Spam ×1");
    await expect(recipeGroup).toContainText("Selling pills, not cooking.");
    await recipeGroup.getByLabel("Why (for the log, optional)").fill("Duplicate of the account report");
    await recipeGroup.getByRole("button", { name: "Dismiss" }).click();
    await expect(adminPage.getByRole("listitem").filter({ hasText: `dismissed the reports of a recipe: ${dish}` })).toContainText("Duplicate of the account report");
    const personGroup = adminPage.getByRole("listitem").filter({ hasText: `@${author.username}` }).filter({ has: adminPage.getByRole("button", { name: "Suspend user" }) });
    await expect(personGroup).toContainText("Every post is an advert.");
    await personGroup.getByRole("button", { name: "Suspend user" }).click();
    await expect(adminPage.getByRole("listitem").filter({ hasText: `suspended @${author.username}` })).toBeVisible();

    // The reporter is told; the author is gone for them; the author's session ended and sign-in says why.
    await openPage(page, "/ReciPals/Notifications");
    await expect(page.getByText("An admin looked at something you reported. Thanks for helping keep ReciPals kind.").first()).toBeVisible();
    await openPage(page, `/ReciPals/Account/Profile/${author.id}`);
    await expect(page.getByRole("heading", { name: "This account is not available." })).toBeVisible();
    await authorPage.goto("/ReciPals/Saved");
    await expect(authorPage).toHaveURL(/\/Account\/Login/);
    await authorPage.getByLabel("Username").fill(author.username);
    await authorPage.getByLabel("Password").fill("spam spam spam");
    await authorPage.getByRole("button", { name: "Sign in" }).click();
    await expect(authorPage.getByText("This account is suspended. Please contact an administrator.")).toBeVisible();
    expect(reporter.id).not.toBe(author.id);
  } finally {
    await authorContext.close();
    await adminContext.close();
  }
});

test("a blocker still sees, deletes and reports the abuse left on their own recipe, and reports the person", async ({ page, browser, javaScriptEnabled }) => {
  test.slow();
  const owner = await signInNewUser(page, "owner");
  const created = await page.request.post("/api/recipes", {
    data: { name: `Quiet soup ${owner.username}`, description: "Calm.", serves: 2, steps: ["Simmer."], ingredients_sec: [{ title: "Main", ingredients: ["Water (1 l)"] }] },
  });
  expect(created.status()).toBe(201);
  const { recipe_id: recipeId } = (await created.json()) as { recipe_id: string };
  const harasserContext = await browser.newContext({ javaScriptEnabled });
  try {
    const harasserPage = await harasserContext.newPage();
    const harasser = await signInNewUser(harasserPage, "harasser");
    for (const text of ["First nasty remark", "Second nasty remark"]) {
      const said = await harasserPage.request.post(`/ReciPals/Recipes/${recipeId}`, { form: { intent: "comment", text, redirectTo: `/ReciPals/Recipes/${recipeId}` }, maxRedirects: 0 });
      expect(said.status()).toBe(302);
    }
    expect((await page.request.post("/api/blocks", { data: { user_id: harasser.id } })).status()).toBe(201);

    await openPage(page, `/ReciPals/Recipes/${recipeId}`);
    const comments = page.getByRole("region", { name: /Comments/ });
    const first = comments.getByRole("listitem").filter({ hasText: "From someone you blocked" }).first();
    // Collapsed: the words show only when opened.
    await expect(comments.getByText("First nasty remark")).toBeHidden();
    await first.getByText("From someone you blocked").click();
    await expect(comments.getByText("First nasty remark")).toBeVisible();

    // Delete one (a confirm with JavaScript; the confirmation page without).
    if (javaScriptEnabled) page.once("dialog", (dialog) => void dialog.accept());
    await first.getByRole("button", { name: "Delete comment" }).click();
    if (!javaScriptEnabled) await page.getByRole("alertdialog").getByRole("button", { name: "Delete comment" }).click();
    await expect(page.getByRole("region", { name: /Comments/ }).getByText("From someone you blocked")).toHaveCount(1);

    // Report the other, then the person.
    await page.getByRole("region", { name: /Comments/ }).getByRole("link", { name: `Report the comment by ${harasser.username}` }).click();
    await expect(page.getByRole("heading", { name: "Report a comment" })).toBeVisible();
    await expect(page.getByText("Second nasty remark")).toBeVisible();
    await sendReport(page, "Harassment", "Left before I blocked them.");
    await openPage(page, `/ReciPals/Report?kind=user&id=${harasser.id}`);
    await expect(page.getByRole("heading", { name: "Report a person" })).toBeVisible();
    await sendReport(page, "Harassment", "");
  } finally {
    await harasserContext.close();
  }
});
