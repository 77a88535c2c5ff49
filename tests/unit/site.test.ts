import { describe, expect, it } from "vitest";

import { loader as infoLoader } from "~/routes/ReciPals.Info";
import { projectSourceUrl } from "~/server/http/site.server";

describe("this project's source link", () => {
  it("is left out when nothing is configured: the Info page never shows a made-up address", () => {
    expect(projectSourceUrl(undefined, undefined)).toBeNull();
    // This repository publishes none today.
    expect(infoLoader()).toEqual({ sourceUrl: null });
  });

  it.each([
    ["https://git.example.org/recipals", undefined, "https://git.example.org/recipals"],
    [undefined, "https://github.com/someone/recipals", "https://github.com/someone/recipals"],
    [undefined, { type: "git", url: "git+https://github.com/someone/recipals.git" }, "https://github.com/someone/recipals"],
    [undefined, "github:someone/recipals", "https://github.com/someone/recipals"],
    ["https://mine.example/src", "github:someone/recipals", "https://mine.example/src"],
    [undefined, "javascript:alert(1)", null],
    [undefined, "ssh://git@github.com/x/y.git", null],
    [undefined, 42, null],
  ])("configured %j, repository %j → %j", (configured, repository, expected) => {
    expect(projectSourceUrl(configured, repository)).toBe(expected);
  });
});
