import { describe, expect, it } from "vitest";

import { loader as postLoader, meta as postMeta } from "~/routes/ReciPals.Account.Profile.$uid.Posts.$pid";
import { loader as profileLoader, meta as profileMeta } from "~/routes/ReciPals.Account.Profile.$uid";

import { makeRecipeWithPost } from "../support/factories";
import { getRequest, makeUser, ORIGIN, routeArgs, signedInCookie } from "../support/app";

// Share previews on the profile and the post viewer (docs/rules.md#share-previews): Open Graph and Twitter card tags
// with absolute URLs, a canonical link, and the author's Atom feed in <head>.

type Descriptor = Record<string, unknown>;

function metaArgs<T>(data: T) {
  // The meta functions read `data` only.
  return { data, params: {}, location: { pathname: "/", search: "", hash: "", state: null, key: "default" }, matches: [], error: undefined } as never;
}

const content = (tags: Descriptor[], key: string) =>
  tags.find((tag) => tag.property === key || tag.name === key)?.content as string | undefined;
const linkTag = (tags: Descriptor[], rel: string) => tags.find((tag) => tag.tagName === "link" && tag.rel === rel);

function expectShareTags(tags: Descriptor[], { title, url, image }: { title: string; url: string; image: string }) {
  expect(content(tags, "og:title")).toBe(title);
  expect(content(tags, "og:url")).toBe(url);
  expect(content(tags, "og:image")).toBe(image);
  expect(content(tags, "og:description")).toBeTruthy();
  expect(content(tags, "twitter:card")).toBe("summary_large_image");
  expect(content(tags, "twitter:title")).toBe(title);
  expect(content(tags, "twitter:image")).toBe(image);
  expect(linkTag(tags, "canonical")?.href).toBe(url);
}

describe("profile page", () => {
  it("carries Open Graph and Twitter tags with absolute URLs, and links the user's Atom feed", async () => {
    const owner = await makeUser({ name: "Jas Min" });
    const viewer = await makeUser();
    const data = await profileLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${owner.id}?tab=saved`, await signedInCookie(viewer.id)), { uid: owner.id }));
    const tags = profileMeta(metaArgs(data)) as Descriptor[];
    expectShareTags(tags, {
      title: `${owner.username} on ReciPals`,
      url: `${ORIGIN}/ReciPals/Account/Profile/${owner.id}`,
      image: `${ORIGIN}/images/profile.png`,
    });
    expect(content(tags, "og:type")).toBe("profile");
    expect(content(tags, "og:description")).toBe(`Jas Min (@${owner.username}) shares 0 recipes on ReciPals.`);
    expect(linkTag(tags, "alternate")).toMatchObject({
      type: "application/atom+xml",
      href: `${ORIGIN}/ReciPals/Users/${owner.id}/recipes.atom`,
    });
  });
});

describe("post viewer", () => {
  it("carries the post's title, caption and photo as absolute URLs, and the author's feed", async () => {
    const author = await makeUser();
    const { postId } = await makeRecipeWithPost({ userId: author.id, name: "Sunday Dal", description: "Lentils, slowly." });
    const data = await postLoader(
      routeArgs(getRequest(`/ReciPals/Account/Profile/${author.id}/Posts/${postId}`, await signedInCookie(author.id)), { uid: author.id, pid: postId! }),
    );
    const tags = postMeta(metaArgs(data)) as Descriptor[];
    expectShareTags(tags, {
      title: "Sunday Dal",
      url: `${ORIGIN}/ReciPals/Account/Profile/${author.id}/Posts/${postId}`,
      image: `${ORIGIN}/images/noodleDish.png`,
    });
    expect(content(tags, "og:description")).toBe("Lentils, slowly.");
    expect(tags.find((tag) => "title" in tag)?.title).toBe("Sunday Dal · ReciPals");
    expect(linkTag(tags, "alternate")?.href).toBe(`${ORIGIN}/ReciPals/Users/${author.id}/recipes.atom`);
  });

  it("has no share tags for a missing post", async () => {
    const author = await makeUser();
    const result = await postLoader(routeArgs(getRequest(`/ReciPals/Account/Profile/${author.id}/Posts/nope`, await signedInCookie(author.id)), { uid: author.id, pid: "nope" }));
    const tags = postMeta(metaArgs((result as unknown as { data: unknown }).data)) as Descriptor[];
    expect(tags).toEqual([{ title: "Post not found · ReciPals" }]);
  });
});
