import { expect, gotoOn, newUser, other, signIn, test, upstreamOf, type ServerName } from "../support/cluster-fixtures";

// 1. A session started on one server is good on the other: sign in through the balancer, then
// keep loading signed-in pages while round robin alternates the servers, and sign out on one.

test("signs in and stays signed in while the servers take turns", async ({ page, cluster, javaScriptEnabled }) => {
  const user = await newUser(cluster, "sess");
  const signedInOn = await signIn(page, user, cluster);
  expect(signedInOn, "nginx names the server that took the sign-in").not.toBeNull();

  const profileHref = `/ReciPals/Account/Profile/${user.id}`;
  const nav = page.getByRole("navigation", { name: "Main" });
  const account = page.getByRole("banner"); // the top bar holds Sign in / Sign out
  const expectSignedIn = async (where: string) => {
    await expect(account.getByRole("button", { name: "Sign out" }), where).toBeVisible();
    await expect(nav.getByRole("link", { name: "Profile" }), where).toHaveAttribute("href", profileHref);
  };

  // Pages only a signed-in user gets as asked (Saved sends visitors to Login), loaded as documents.
  const pages = ["/ReciPals/Saved", "/ReciPals/Home", profileHref, "/ReciPals/Search", "/ReciPals/Info"];
  const servedBy: Record<ServerName, string[]> = { a: [], b: [] };
  let previous: ServerName | null = signedInOn;
  for (let i = 0; i < 12 && (i < pages.length || servedBy.a.length < 2 || servedBy.b.length < 2); i++) {
    const url = pages[i % pages.length]!;
    // Ask for the server that did not answer last, so the pages really alternate.
    const want: ServerName = previous ? other(previous) : "a";
    const response = await gotoOn(page, url, want, cluster);
    expect(response.status(), url).toBe(200);
    await expect(page).toHaveURL(url);
    await expectSignedIn(`${url} from server ${want}`);
    servedBy[want].push(url);
    previous = want;
  }
  expect(servedBy.a.length, "signed-in pages server a answered").toBeGreaterThanOrEqual(2);
  expect(servedBy.b.length, "signed-in pages server b answered").toBeGreaterThanOrEqual(2);

  if (javaScriptEnabled) {
    // Client-side navigations (Remix `.data` requests) spread over both servers too, all signed in.
    await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
    const dataFrom = new Set<ServerName>();
    const onResponse = (response: import("@playwright/test").Response) => {
      if (!new URL(response.url()).pathname.endsWith(".data")) return;
      const from = upstreamOf(cluster, response.headers());
      if (from) dataFrom.add(from);
    };
    page.on("response", onResponse);
    for (let i = 0; i < 8 && dataFrom.size < 2; i++) {
      for (const [label, url] of [
        ["Saved", "/ReciPals/Saved"],
        ["Profile", profileHref],
        ["Home", "/ReciPals/Home"],
      ] as const) {
        await nav.getByRole("link", { name: label }).click();
        await expect(page).toHaveURL(url);
        await expectSignedIn(`${label} after a client-side navigation`);
      }
    }
    page.off("response", onResponse);
    expect([...dataFrom].sort(), "servers that answered signed-in data requests").toEqual(["a", "b"]);
  }

  // Signing out on one server ends the session on both: it lives in the shared database. The old
  // cookie is put back afterwards, so it is the server, not the browser, that forgets the session.
  const session = (await page.context().cookies()).filter((cookie) => cookie.name === "recipals_session");
  expect(session).toHaveLength(1);
  const [signOut] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes("/ReciPals/Account/Logout")),
    account.getByRole("button", { name: "Sign out" }).click(),
  ]);
  await expect(page).toHaveURL(/\/ReciPals\/Home$/);
  const signedOutOn = upstreamOf(cluster, signOut.headers());
  expect(signedOutOn).not.toBeNull();
  await page.context().addCookies(session);
  await gotoOn(page, "/ReciPals/Saved", other(signedOutOn!), cluster);
  await expect(page).toHaveURL(/\/ReciPals\/Account\/Login/);
  await expect(account.getByRole("button", { name: "Sign out" })).toHaveCount(0);
});
