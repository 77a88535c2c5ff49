import { createRecipeInEditor, expect, gotoOn, newUser, other, servedFromPageCache, signIn, test, upstreamOf, type ServerName } from "../support/cluster-fixtures";

// 4. A recipe created through one server is found by search on the other: signed in, and by a
// visitor whose search page the other server had already kept in its page cache (with no
// result) before the recipe existed.

test("a recipe created on one server is found by search on the other", async ({ page, browser, playwright, cluster, javaScriptEnabled }) => {
  // A made-up word, so the search finds this recipe and nothing else.
  const word = `zq${Array.from({ length: 8 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("")}`;
  const name = `Cluster tart ${word}`;
  const searchUrl = `/ReciPals/Search?q=${word}`;
  const results = (p: typeof page) => p.getByRole("region", { name: "Recipes" }).getByRole("link", { name: new RegExp(name) });

  // Each server keeps the visitor's search page while the word finds nothing.
  const visitorApi = await playwright.request.newContext({ baseURL: cluster.url });
  try {
    const hits = new Set<ServerName>();
    for (let i = 0; i < 12 && hits.size < 2; i++) {
      const response = await visitorApi.get(searchUrl);
      expect(response.status()).toBe(200);
      expect(await response.text()).not.toContain(name);
      const from = upstreamOf(cluster, response.headers());
      if (from && servedFromPageCache(response.headers())) hits.add(from);
    }
    expect([...hits].sort(), "servers that answered the visitor's search from their page cache").toEqual(["a", "b"]);
  } finally {
    await visitorApi.dispose();
  }

  const user = await newUser(cluster, "srch");
  await signIn(page, user, cluster);
  const { recipeId, savedOn } = await createRecipeInEditor(page, cluster, { name });
  expect(savedOn, "nginx names the server that took the Save").not.toBeNull();
  const searcher = other(savedOn!);

  await gotoOn(page, searchUrl, searcher, cluster);
  await expect(results(page), `signed in, search on server ${searcher}`).toHaveCount(1);
  await expect(results(page)).toHaveAttribute("href", `/ReciPals/Recipes/${recipeId}`);

  const visitorContext = await browser.newContext({ baseURL: cluster.url, javaScriptEnabled });
  try {
    const visitor = await visitorContext.newPage();
    const answer = await gotoOn(visitor, searchUrl, searcher, cluster);
    const how = `visitor, search on server ${searcher}, ${servedFromPageCache(answer.headers()) ? "answered from its page cache" : "rendered afresh"}`;
    await expect(results(visitor), how).toHaveCount(1);
    if (javaScriptEnabled) {
      // Typed into the search box: the page asks the servers in turn as it searches.
      await visitor.goto("/ReciPals/Search");
      await visitor.locator("html[data-hydrated]").waitFor({ state: "attached" });
      await visitor.getByPlaceholder("Search recipes, ingredients, users...").fill(word);
      await expect(results(visitor)).toHaveCount(1);
    }
  } finally {
    await visitorContext.close();
  }
});
