import fs from "node:fs";
import path from "node:path";

import { expect, test, type Page } from "@playwright/test";
import { simpleParser } from "mailparser";

import { axeViolations } from "../support/axe";
import { createUser, failOnBrowserErrors, signInAs, uniqueName, writeDb } from "../support/e2e";
import { E2E_DATA } from "../support/e2e-server";

// Getting back into an account by email (docs/rules.md#account-email), once with JavaScript and
// once without. The e2e server has no SMTP_URL, so it writes each mail to the outbox folder beside
// its database, as `npm start` does: the test reads the mail there and follows its link.

const OUTBOX = path.join(E2E_DATA, "outbox");

/** The newest mail to `to` whose subject matches, waiting for it to be written. */
async function mailTo(to: string, subject: RegExp): Promise<{ text: string; html: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const files = fs.existsSync(OUTBOX) ? fs.readdirSync(OUTBOX).filter((name) => name.endsWith(".eml")).sort().reverse() : [];
    for (const name of files) {
      const mail = await simpleParser(fs.readFileSync(path.join(OUTBOX, name)));
      const recipients = (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((group) => group.value.map((entry) => entry.address?.toLowerCase()));
      if (recipients.includes(to.toLowerCase()) && subject.test(mail.subject ?? "")) return { text: mail.text ?? "", html: typeof mail.html === "string" ? mail.html : "" };
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} matching ${subject} in ${OUTBOX}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** axe finds nothing on the page as it is (WCAG 2.2 AA); run with JavaScript on (axe is a script), on the same markup. */
async function expectAxeClean(page: Page) {
  if (test.info().project.use.javaScriptEnabled === false) return;
  const violations = await axeViolations(page, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] } });
  expect(violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`)).toEqual([]);
}

const linkIn = (text: string, base: string, route: string) => {
  const found = text.split(/\s+/).find((word) => word.startsWith(`${base}${route}`));
  if (!found) throw new Error(`no ${route} link in: ${text}`);
  return found;
};

async function personWithAddress(page: Page) {
  const user = await createUser("forgetful", { password: "the old password" });
  const email = `${user.username}@mail.example`;
  writeDb((db) => db.prepare("update users set email = ?, email_confirmed_at = ? where id = ?").run(email, new Date().toISOString(), user.id));
  void page;
  return { ...user, email };
}

test.describe("account recovery by email", () => {
  failOnBrowserErrors();

  test("Forgot password? → the mail's link → a new password: signed in, every old session ended", async ({ page, browser, baseURL }) => {
    const person = await personWithAddress(page);
    // A session elsewhere (another browser) that the reset must end.
    const elsewhere = await browser.newContext({ baseURL });
    const other = await elsewhere.newPage();
    await signInAs(other, person);
    await other.goto(`/ReciPals/Account/Profile/${person.id}/Edit`);
    await expect(other.getByRole("heading", { name: "Edit Profile" })).toBeVisible();

    await page.goto("/ReciPals/Account/Login");
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Forgot$/);
    await page.getByLabel("Username or email").fill(person.username);
    await page.getByRole("button", { name: "Send link" }).click();
    await expect(page.getByRole("status")).toHaveText("If that account has a confirmed email, we sent a link to it.");

    const mail = await mailTo(person.email, /Choose a new password/);
    const link = linkIn(mail.text, baseURL!, "/ReciPals/Account/Reset/");
    expect(mail.html).toContain(link);
    const opened = await page.goto(link);
    await expect(page.getByRole("heading", { name: "Choose a new password" })).toBeVisible();
    // The token is in the address: never stored or shared, no Referer sent to another site (a form post still says its origin).
    expect(opened?.headers()["cache-control"]).toBe("private, no-store");
    await expect(page.locator('meta[name="referrer"]')).toHaveAttribute("content", "same-origin");
    // Two different passwords: said, nothing changed.
    await page.getByLabel("New password").fill("a new password");
    await page.getByLabel("Verify Password").fill("another one");
    await page.getByRole("button", { name: "Save password" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "Passwords don't match" })).toBeVisible();
    await expectAxeClean(page);
    await page.getByLabel("New password").fill("a new password");
    await page.getByLabel("Verify Password").fill("a new password");
    await page.getByRole("button", { name: "Save password" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${person.id}\\?notice=password-changed$`));
    await expect(page.getByRole("status").filter({ hasText: "Your password was changed." })).toBeVisible();

    // The other browser's session is over.
    await other.goto(`/ReciPals/Account/Profile/${person.id}/Edit`);
    await expect(other).toHaveURL(/\/ReciPals\/Account\/Login/);
    await elsewhere.close();
    // The link worked once.
    await page.goto(link);
    await expect(page.getByRole("alert")).toHaveText("This link is no longer valid. Please ask for a new one.");
    await expect(page.getByRole("link", { name: "Ask for a new link" })).toHaveAttribute("href", "/ReciPals/Account/Forgot");
  });

  test("an unknown name gets the same answer, and no mail", async ({ page }) => {
    const nobody = uniqueName("nobody");
    await page.goto("/ReciPals/Account/Forgot");
    await page.getByLabel("Username or email").fill(nobody);
    await page.getByRole("button", { name: "Send link" }).click();
    await expect(page.getByRole("status")).toHaveText("If that account has a confirmed email, we sent a link to it.");
  });

  test("sign up with an email: Confirm your email, confirmed from the link's button", async ({ page, baseURL }) => {
    const username = uniqueName("mailcook");
    const email = `${username}@mail.example`;
    await page.goto("/ReciPals/Account/Signup");
    await page.getByLabel("Name", { exact: true }).fill("Mail Cook");
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("a good password");
    await page.getByLabel("Verify Password").fill("a good password");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/SignupTags$/);
    await page.getByRole("button", { name: "Sign up" }).click();
    await expect(page).toHaveURL(/\/ReciPals\/Account\/Profile\/[0-9a-f-]{36}$/);
    const userId = new URL(page.url()).pathname.split("/").pop()!;

    await page.goto(`/ReciPals/Account/Profile/${userId}/Edit`);
    await expect(page.getByLabel("Email")).toHaveValue(email);
    await expect(page.getByText("Not confirmed yet")).toBeVisible();
    await expect(page.getByRole("button", { name: "Send again" })).toBeVisible();
    await expectAxeClean(page);

    const link = linkIn((await mailTo(email, /Confirm your email/)).text, baseURL!, "/ReciPals/Account/Verify/");
    await page.goto(link);
    await expect(page.getByText(`Confirm ${email} as the email address of your account.`)).toBeVisible();
    await expectAxeClean(page);
    await page.getByRole("button", { name: "Confirm email" }).click();
    await expect(page).toHaveURL(new RegExp(`/ReciPals/Account/Profile/${userId}/Edit\\?notice=email-confirmed$`));
    await expect(page.getByRole("status").filter({ hasText: "Your email address is confirmed." })).toBeVisible();
    await expect(page.getByText("Confirmed", { exact: true })).toBeVisible();
  });
});
