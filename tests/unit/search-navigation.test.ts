import { describe, expect, it } from "vitest";

import { onlySearchChanged } from "~/lib/search-navigation";

// Typing in the Search page's box is a GET navigation per search: the layout's data (who is signed
// in, the unread count) is not loaded again for it; anything else revalidates as Remix decides.

const at = (path: string) => new URL(path, "http://localhost:4000");

describe("onlySearchChanged", () => {
  it("is true for a new query of the Search page, typed (GET form) or from Back/Forward", () => {
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search?q=ud"), nextUrl: at("/ReciPals/Search?q=udon"), formMethod: "GET" })).toBe(true);
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search"), nextUrl: at("/ReciPals/Search?q=udon") })).toBe(true);
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search?q=udon"), nextUrl: at("/ReciPals/Search"), formMethod: "get" })).toBe(true);
  });

  it("is false for a write, a revalidation of the same address, and leaving or entering the Search page", () => {
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search?q=udon"), nextUrl: at("/ReciPals/Search?q=udon") })).toBe(false);
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search?q=udon"), nextUrl: at("/ReciPals/Search?q=udon"), formMethod: "POST" })).toBe(false);
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Home"), nextUrl: at("/ReciPals/Search?q=udon") })).toBe(false);
    expect(onlySearchChanged({ currentUrl: at("/ReciPals/Search?q=udon"), nextUrl: at("/ReciPals/Recipes/jd-R1") })).toBe(false);
  });
});
