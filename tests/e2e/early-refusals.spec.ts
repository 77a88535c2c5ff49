import http from "node:http";
import net from "node:net";

import { expect, test, type Page } from "@playwright/test";

import { cameraPhoto } from "../support/photos";

import { startAppServer } from "../support/e2e-server";
import { ADMIN, botPostFor, failOnBrowserErrors, pickedFile, readDb, signInAs, signInNewUser } from "../support/e2e";

// Answers the server gives before any route runs (app/server/http/early-answers.server.ts): the upload
// queue full, a body over its route's limit, a post from another site, NUL in an address. With
// JavaScript, Remix's client must be able to read each (it once replaced the whole page with the
// error page: "Unable to decode turbo-stream response"), and the message shows on the form being
// filled in, which keeps what was typed; without JavaScript each is a small page saying why.
//
// These tests fill the upload queue, so they run against a server of their own (same build, same
// database) on a port per worker: the other specs' uploads are never turned away.

failOnBrowserErrors();

let server: Awaited<ReturnType<typeof startAppServer>>;
let base: string;
let port: number;

test.beforeAll(async () => {
  server = await startAppServer();
  ({ base, port } = server);
});

test.afterAll(() => {
  server?.stop();
});

/**
 * Fills the upload queue of the server: 4 photo posts being read (their bodies never come) and 64
 * waiting, all to the signed-in person's own profile editor; the queue is known to be full when
 * the posts beyond those are turned away. Returns the sockets to let go.
 */
async function fillUploadQueue(page: Page, userId: string): Promise<net.Socket[]> {
  const cookie = (await page.context().cookies()).find((c) => c.name === "recipals_session");
  expect(cookie).toBeDefined();
  const request =
    `POST /ReciPals/Account/Profile/${userId}/Edit HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Cookie: recipals_session=${cookie!.value}\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 5000000\r\n\r\n`;
  let turnedAway = 0;
  const sockets = await Promise.all(
    Array.from({ length: 70 }, () => new Promise<net.Socket>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.write(request);
        resolve(socket);
      });
      socket.on("data", (answer) => {
        if (answer.toString("latin1").startsWith("HTTP/1.1 503")) turnedAway += 1;
      });
      socket.on("error", () => undefined);
    })),
  );
  await expect.poll(() => turnedAway, { timeout: 15_000 }).toBe(2);
  return sockets;
}

/** Whether a photo post is let in now (a visitor's is answered at once with the way to sign in). */
const uploadsLetIn = () =>
  fetch(`${base}/ReciPals/Account/Profile/nobody/Edit`, {
    method: "POST",
    headers: { "Content-Type": "multipart/form-data; boundary=x" },
    body: "0123456789",
    redirect: "manual",
    signal: AbortSignal.timeout(1_000),
  }).then((response) => response.status !== 503, () => false);

/**
 * A balancer in front of the server that passes every request on with the server's own address
 * as Host (a common misconfiguration): the browser's Origin, http://localhost:…, then names
 * another site than the one the server thinks it is, and every post is refused as cross-site.
 */
async function hostRewritingProxy(): Promise<{ url: string; close: () => void }> {
  const proxy = http.createServer((req, res) => {
    const upstream = http.request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port: proxyPort } = proxy.address() as net.AddressInfo;
  return { url: `http://localhost:${proxyPort}`, close: () => proxy.close() };
}

/** Opens a page of the second server; with JavaScript, waits until it is hydrated (a click earlier would be a plain post). */
async function open(page: Page, path: string, javaScriptEnabled: boolean) {
  await page.goto(path.startsWith("http") ? path : `${base}${path}`);
  if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** The session cookie of `page`'s context for `localhost` too (the proxy's address). */
async function shareSessionWithLocalhost(page: Page) {
  const session = (await page.context().cookies()).find((c) => c.name === "recipals_session");
  await page.context().addCookies([{ ...session!, domain: "localhost" }]);
}

test("the upload queue full: the profile editor says so on the form and keeps what was typed; Save works once it drains", async ({ page, javaScriptEnabled }) => {
  const me = await signInNewUser(page, "busy");
  await open(page, `/ReciPals/Account/Profile/${me.id}/Edit`, javaScriptEnabled);
  const sockets = await fillUploadQueue(page, me.id);
  try {
    await page.getByLabel("Name", { exact: true }).fill("Busy Cook");
    await page.getByLabel("Profile Photo").setInputFiles(pickedFile("IMG_1.jpg", await cameraPhoto({ width: 1200, height: 800 })));
    await page.getByRole("button", { name: "Save" }).click();
    const message = "The server is busy with other uploads. Please try again in a moment.";
    if (javaScriptEnabled) {
      await expect(page.getByRole("alert")).toHaveText(message);
      await expect(page.getByRole("heading", { name: "Edit Profile" })).toBeVisible();
      await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Busy Cook");
    } else {
      await expect(page.getByRole("heading", { name: "Busy" })).toBeVisible();
      await expect(page.getByText(message)).toBeVisible();
    }
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  expect(readDb((db) => db.prepare("select name from users where id = ?").pluck().get(me.id))).not.toBe("Busy Cook");
  if (!javaScriptEnabled) return;
  // The same form, as it was left, saves once the queue has drained.
  await expect.poll(uploadsLetIn, { timeout: 15_000 }).toBe(true);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Busy Cook");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page).toHaveURL(`${base}/ReciPals/Account/Profile/${me.id}`);
  expect(readDb((db) => db.prepare("select name from users where id = ?").pluck().get(me.id))).toBe("Busy Cook");
});

test("a pasted text over the admin form's 1 MB: the message under the editor, the text kept, nothing saved", async ({ page, javaScriptEnabled }) => {
  await signInAs(page, ADMIN);
  const { recipeId } = botPostFor(test.info().project.name, 17);
  const before = readDb((db) => db.prepare("select group_concat(l.text, char(10)) from ingredient_lines l join ingredient_sections s on s.id = l.section_id where s.recipe_id = ?").pluck().get(recipeId));
  await open(page, `/ReciPals/Account/Admin/Recipes/${recipeId}?edit=ingredients`, javaScriptEnabled);
  const text = `Pasted:\n${"Flour (200g) and a great deal more about the flour, the mill and the harvest\n".repeat(15_000)}`;
  expect(text.length).toBeGreaterThan(1024 * 1024);
  const box = page.getByRole("textbox", { name: "Ingredients" });
  // Pasted: set at once (typing a megabyte key by key would take minutes).
  await box.evaluate((element, value) => {
    (element as HTMLTextAreaElement).value = value;
    element.dispatchEvent(new Event("input", { bubbles: true }));
  }, text);
  await page.getByRole("button", { name: "Save" }).click();
  const message = "What you sent is too large for this form (1 MB at most). Please shorten it and try again.";
  if (javaScriptEnabled) {
    await expect(page.getByRole("alert")).toHaveText(message);
    expect((await box.inputValue()).length).toBe(text.length);
  } else {
    await expect(page.getByRole("heading", { name: "Too large" })).toBeVisible();
    await expect(page.getByText(message)).toBeVisible();
  }
  expect(readDb((db) => db.prepare("select group_concat(l.text, char(10)) from ingredient_lines l join ingredient_sections s on s.id = l.section_id where s.recipe_id = ?").pluck().get(recipeId))).toBe(before);
});

test("a post the server takes for another site's: refused on the form, the fields kept", async ({ page, javaScriptEnabled }) => {
  const proxy = await hostRewritingProxy();
  try {
    await open(page, `${proxy.url}/ReciPals/Account/Login`, javaScriptEnabled);
    await page.getByLabel("Username").fill("jasminduong09");
    await page.getByLabel("Password").fill("ReciPals");
    await page.getByRole("button", { name: "Sign in" }).click();
    if (javaScriptEnabled) {
      await expect(page.getByRole("alert")).toHaveText("Cross-site requests are not allowed.");
      await expect(page.getByLabel("Username")).toHaveValue("jasminduong09");
      await expect(page).toHaveURL(`${proxy.url}/ReciPals/Account/Login`);
    } else {
      await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
      await expect(page.getByText("Cross-site requests are not allowed.")).toBeVisible();
    }
  } finally {
    proxy.close();
  }
});

test("a Save (a fetcher form) refused the same way says so beside the button, which stays unsaved", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "without JavaScript Save is a page post: the test above covers the refusal page");
  const me = await signInNewUser(page, "saver");
  await shareSessionWithLocalhost(page);
  const { recipeId } = botPostFor(test.info().project.name, 18);
  const proxy = await hostRewritingProxy();
  try {
    await open(page, `${proxy.url}/ReciPals/Recipes/${recipeId}`, javaScriptEnabled);
    await page.getByRole("button", { name: "Save recipe" }).click();
    await expect(page.getByRole("alert")).toHaveText("Cross-site requests are not allowed.");
    await expect(page.getByRole("button", { name: "Save recipe" })).toBeVisible();
    expect(readDb((db) => db.prepare("select count(*) from saved_recipes where user_id = ?").pluck().get(me.id))).toBe(0);
  } finally {
    proxy.close();
  }
});

test("an address holding NUL: a page saying so, not the error page", async ({ page, javaScriptEnabled }) => {
  await open(page, "/ReciPals/Info", javaScriptEnabled);
  if (javaScriptEnabled) {
    // A link followed in the page (added once the page is hydrated, or React would take it for a
    // mismatch): Remix's client asks for the address's data.
    await page.evaluate(() => {
      const link = document.createElement("a");
      link.href = "/ReciPals/Search?q=%00";
      link.dataset.discover = "true";
      link.textContent = "odd link";
      document.querySelector("main")!.append(link);
    });
    const asked = page.waitForRequest((request) => new URL(request.url()).pathname === "/ReciPals/Search.data");
    await page.getByRole("link", { name: "odd link" }).click();
    await asked;
  } else {
    await page.goto(`${base}/ReciPals/Search?q=%00`);
  }
  await expect(page.getByText("Addresses may not contain NUL characters.")).toBeVisible();
  await expect(page.getByText("Something went wrong")).toHaveCount(0);
});
