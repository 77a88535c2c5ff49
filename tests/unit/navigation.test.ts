import { describe, expect, it } from "vitest";

import { isActiveEntry, navEntries } from "~/lib/navigation";
import { safeRedirect } from "~/lib/paths";
import { loader as indexLoader } from "~/routes/_index";
import { loader as accountLoader } from "~/routes/ReciPals.Account._index";
import { loader as profileLoader } from "~/routes/ReciPals.Account.Profile.$uid";
import { loader as createLoader } from "~/routes/ReciPals.Create";
import { loader as baseLoader } from "~/routes/ReciPals._index";

import { expectRedirect, getRequest, makeUser, routeArgs, settle, signedInCookie } from "../support/app";

describe("navigation entries", () => {
  it("gives visitors Login for Create, Saved and Profile and no Admin", () => {
    const entries = navEntries(null);
    expect(entries.map((e) => e.label)).toEqual(["Home", "Search", "Create", "Saved", "Profile", "Info"]);
    expect(entries.find((e) => e.label === "Profile")?.to).toBe("/ReciPals/Account/Login");
    expect(entries.find((e) => e.label === "Create")?.to).toMatch(/^\/ReciPals\/Account\/Login\?/);
    expect(entries.find((e) => e.label === "Saved")?.to).toMatch(/^\/ReciPals\/Account\/Login\?/);
  });

  it("gives a USER their own profile and the Create route, still no Admin", () => {
    const entries = navEntries({ id: "u1", role: "USER" });
    expect(entries.map((e) => e.label)).not.toContain("Admin");
    expect(entries.find((e) => e.label === "Profile")?.to).toBe("/ReciPals/Account/Profile/u1");
    expect(entries.find((e) => e.label === "Create")?.to).toBe("/ReciPals/Create");
  });

  it("adds Admin for an ADMIN", () => {
    const entries = navEntries({ id: "a1", role: "ADMIN" });
    expect(entries.map((e) => e.label)).toEqual(["Home", "Search", "Create", "Saved", "Profile", "Admin", "Info"]);
    expect(entries.find((e) => e.label === "Admin")?.to).toBe("/ReciPals/Account/Admin");
  });

  it("marks the entry whose name the path contains; Profile only on the viewer's own profile", () => {
    const active = (path: string) => navEntries({ id: "a1", role: "ADMIN" }).filter((e) => isActiveEntry(e, path)).map((e) => e.label);
    expect(active("/ReciPals/Home")).toEqual(["Home"]);
    expect(active("/ReciPals/Account/Profile/a1/Posts/p1")).toEqual(["Profile"]);
    // Someone else's profile is not the viewer's own: no entry is current there.
    expect(active("/ReciPals/Account/Profile/123/Posts/p1")).toEqual([]);
    expect(active("/ReciPals/Account/Profile/a12")).toEqual([]);
    expect(active("/ReciPals/Account/Admin/Users")).toEqual(["Admin"]);
    expect(active("/ReciPals/Editor/abc")).toEqual(["Create"]);
    expect(active("/recipals/search")).toEqual(["Search"]);
  });
});

describe("redirects", () => {
  it("sends / and /ReciPals to Home", async () => {
    expectRedirect(await settle(() => indexLoader()), "/ReciPals/Home");
    expectRedirect(await settle(() => baseLoader()), "/ReciPals/Home");
  });

  it("sends Account to the own profile, or to Login for visitors", async () => {
    const user = await makeUser();
    expectRedirect(await settle(() => accountLoader(routeArgs(getRequest("/ReciPals/Account")))), "/ReciPals/Account/Login");
    const cookie = await signedInCookie(user.id);
    expectRedirect(
      await settle(() => accountLoader(routeArgs(getRequest("/ReciPals/Account", cookie)))),
      `/ReciPals/Account/Profile/${user.id}`,
    );
  });

  it("mints a fresh editor id for every Create, and sends visitors to Login with the reason", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const first = expectRedirect(await settle(() => createLoader(routeArgs(getRequest("/ReciPals/Create", cookie)))), /^\/ReciPals\/Editor\/[0-9a-f-]{36}$/);
    const second = expectRedirect(await settle(() => createLoader(routeArgs(getRequest("/ReciPals/Create", cookie)))), /^\/ReciPals\/Editor\//);
    expect(first.headers.get("Location")).not.toBe(second.headers.get("Location"));
    expectRedirect(
      await settle(() => createLoader(routeArgs(getRequest("/ReciPals/Create")))),
      "/ReciPals/Account/Login?redirectTo=%2FReciPals%2FCreate&reason=create",
    );
  });

  it("requires sign-in for a profile and remembers where the visitor was going", async () => {
    const user = await makeUser();
    const path = `/ReciPals/Account/Profile/${user.id}`;
    expectRedirect(
      await settle(() => profileLoader(routeArgs(getRequest(path), { uid: user.id }))),
      `/ReciPals/Account/Login?redirectTo=${encodeURIComponent(path)}`,
    );
  });

  it("answers 404 'User not found.' for an unknown profile", async () => {
    const user = await makeUser();
    const cookie = await signedInCookie(user.id);
    const result = await settle(() =>
      profileLoader(routeArgs(getRequest("/ReciPals/Account/Profile/nope", cookie), { uid: "nope" })),
    );
    expect(result).toBeInstanceOf(Response);
    expect((result as Response).status).toBe(404);
    expect(await (result as Response).text()).toBe("User not found.");
  });

  it("only follows same-site paths after sign-in", () => {
    expect(safeRedirect("/ReciPals/Saved")).toBe("/ReciPals/Saved");
    expect(safeRedirect("https://evil.example")).toBe("/ReciPals/Home");
    expect(safeRedirect("//evil.example")).toBe("/ReciPals/Home");
    expect(safeRedirect("/\\evil.example")).toBe("/ReciPals/Home");
    expect(safeRedirect(null)).toBe("/ReciPals/Home");
  });
});
