import { expect, test } from "@playwright/test";

import { ADMIN, failOnBrowserErrors, signInAs } from "../support/e2e";

// Admin → Federation (docs/federation.md#safety): block a whole server, see it listed, lift the
// block; a name that is not a domain gets a clear message. Plain forms: the same with JavaScript off.

failOnBrowserErrors();

test("an admin blocks a domain, sees it listed and unblocks it; a bad name is refused with a message", async ({ page }, testInfo) => {
  const domain = `spam-${testInfo.project.name}-${Date.now()}.example`;
  await signInAs(page, ADMIN);
  await page.goto("/ReciPals/Account/Admin");
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Federation" }).click();
  await expect(page).toHaveURL(/\/Admin\/Federation$/);
  await expect(page.getByRole("heading", { name: "Federation" })).toBeVisible();

  await page.getByLabel("Domain", { exact: true }).fill("not a domain!");
  await page.getByRole("button", { name: "Block domain" }).click();
  await expect(page.getByRole("alert")).toHaveText("Enter a domain name such as social.example.");
  await expect(page.getByLabel("Domain", { exact: true })).toHaveValue("not a domain!");

  await page.getByLabel("Domain", { exact: true }).fill(`https://${domain.toUpperCase()}/`);
  await page.getByRole("button", { name: "Block domain" }).click();
  await expect(page.getByRole("status")).toHaveText(`Blocked ${domain}.`);
  const listed = page.getByRole("list", { name: "Blocked domains" }).getByRole("listitem").filter({ hasText: domain });
  await expect(listed).toHaveCount(1);

  await listed.getByRole("button", { name: `Unblock ${domain}` }).click();
  await expect(page.getByRole("status")).toHaveText(`Unblocked ${domain}.`);
  await expect(page.getByRole("listitem").filter({ hasText: domain })).toHaveCount(0);
});
