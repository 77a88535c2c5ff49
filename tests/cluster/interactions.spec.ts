import type { APIRequestContext, Page } from "@playwright/test";

import {
  expect,
  getJson,
  gotoOn,
  newUser,
  servedFromPageCache,
  signIn,
  test,
  uniqueName,
  upstreamOf,
  type ClusterState,
  type ServerName,
} from "../support/cluster-fixtures";

// 2. A like and a comment made through one server show at once through the other: to the
// signed-in user, and to a visitor without cookies, whose pages and API reads come from each
// server's shared page cache. Both caches are warm (and shown to answer from memory) before the
// writes, so a server that missed the other's write would answer what it had kept.
// Visitors never see the post viewer (an Account page), so they see the like through the API's
// post, which the page cache keeps as it keeps pages.

const SERVERS: ServerName[] = ["a", "b"];
const likesText = (n: number) => new RegExp(`^${n} ${n === 1 ? "like" : "likes"}$`);

/** Visitor requests until every server has answered `url` from its page cache. */
async function warmPageCaches(visitor: APIRequestContext, url: string, cluster: ClusterState): Promise<void> {
  const hits = new Set<ServerName>();
  for (let i = 0; i < 12 && hits.size < SERVERS.length; i++) {
    const response = await visitor.get(url);
    expect(response.status(), url).toBe(200);
    const from = upstreamOf(cluster, response.headers());
    if (from && servedFromPageCache(response.headers())) hits.add(from);
  }
  expect([...hits].sort(), `servers that answered ${url} to a visitor from their page cache`).toEqual(SERVERS);
}

/** A visitor's GET through the balancer until `server` answers it. */
async function visitorGetOn(visitor: APIRequestContext, url: string, server: ServerName, cluster: ClusterState) {
  for (let i = 0; i < 6; i++) {
    const response = await visitor.get(url);
    if (upstreamOf(cluster, response.headers()) === server) return response;
  }
  throw new Error(`${url} was never answered by server ${server}`);
}

async function waitForHydration(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

interface ApiPost {
  likes: string[];
  comments: { text: string }[];
}

test("a like and a comment made on one server show at once on the other, to visitors too", async ({
  page,
  browser,
  playwright,
  cluster,
  javaScriptEnabled,
}, testInfo) => {
  // A bot post of this project's own, so the two projects never count each other's likes.
  const slot = testInfo.project.name === "js" ? 200 : 201;
  const postId = `recipeBot-P${slot}`;
  const recipeId = `recipeBot-R${slot}`;
  const postPage = `/ReciPals/Account/Profile/recipeBot/Posts/${postId}`;
  const recipePage = `/ReciPals/Recipes/${recipeId}`;
  const postApi = `/api/posts/${postId}`;
  const before = await getJson<ApiPost>(`${cluster.url}${postApi}`);
  const likes = before.likes.length;
  const comments = before.comments.length;

  const visitorApi = await playwright.request.newContext({ baseURL: cluster.url });
  const visitorContext = await browser.newContext({ baseURL: cluster.url, javaScriptEnabled });
  try {
    await warmPageCaches(visitorApi, recipePage, cluster);
    await warmPageCaches(visitorApi, postApi, cluster);

    const user = await newUser(cluster, "like");
    await signIn(page, user, cluster);

    await page.goto(postPage);
    await waitForHydration(page, javaScriptEnabled);
    const viewer = page.getByRole("dialog");
    await expect(viewer.getByText(likesText(likes))).toBeVisible();
    const [liked] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/ReciPals/Posts/${postId}/Like`)),
      viewer.getByRole("button", { name: "Like" }).click(),
    ]);
    expect(liked.status(), "the like was accepted").toBeLessThan(400);
    const likedOn = upstreamOf(cluster, liked.headers());
    expect(likedOn, "nginx names the server that took the like").not.toBeNull();
    await expect(viewer.getByRole("button", { name: "Like", exact: true, pressed: true })).toHaveAttribute("aria-pressed", "true");

    const text = `Made it on one server, ${uniqueName("seen")} on the other`;
    await page.goto(recipePage);
    await waitForHydration(page, javaScriptEnabled);
    await expect(page.getByRole("heading", { name: `Comments (${comments})` })).toBeVisible();
    await page.getByPlaceholder("Add a comment...").fill(text);
    const [commented] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/ReciPals/Recipes/${recipeId}`)),
      page.getByRole("button", { name: "Post" }).click(),
    ]);
    expect(commented.status(), "the comment was accepted").toBeLessThan(400);
    const commentedOn = upstreamOf(cluster, commented.headers());
    expect(commentedOn, "nginx names the server that took the comment").not.toBeNull();
    await expect(page.getByRole("heading", { name: `Comments (${comments + 1})` })).toBeVisible();
    testInfo.annotations.push({ type: "writes", description: `like on server ${likedOn}, comment on server ${commentedOn}` });

    // Every server, so the one that did not take a write is among them: the first answer it gives
    // after the writes must show them (no reloading until it does).
    const visitor = await visitorContext.newPage();
    for (const server of SERVERS) {
      await gotoOn(page, postPage, server, cluster);
      await expect(page.getByRole("dialog").getByText(likesText(likes + 1)), `signed in, server ${server}`).toBeVisible();
      await expect(page.getByRole("dialog").getByRole("button", { name: "Like", exact: true, pressed: true }), `signed in, server ${server}`).toHaveAttribute(
        "aria-pressed",
        "true",
      );
      await gotoOn(page, recipePage, server, cluster);
      await expect(page.getByText(text), `signed in, server ${server}`).toBeVisible();

      const how = (headers: Record<string, string>) => `visitor, server ${server}, ${servedFromPageCache(headers) ? "answered from its page cache" : "rendered afresh"}`;
      const recipeAnswer = await gotoOn(visitor, recipePage, server, cluster);
      await expect(visitor.getByRole("heading", { name: `Comments (${comments + 1})` }), how(recipeAnswer.headers())).toBeVisible();
      await expect(visitor.getByText(text), how(recipeAnswer.headers())).toBeVisible();
      await expect(visitor.getByText("Please log in to add comments."), "still a visitor").toBeVisible();

      const postAnswer = await visitorGetOn(visitorApi, postApi, server, cluster);
      const post = (await postAnswer.json()) as ApiPost;
      expect(post.likes, how(postAnswer.headers())).toContain(user.id);
      expect(post.likes, how(postAnswer.headers())).toHaveLength(likes + 1);
      expect(post.comments.map((comment) => comment.text), how(postAnswer.headers())).toContain(text);
    }
  } finally {
    await visitorContext.close();
    await visitorApi.dispose();
  }
});
