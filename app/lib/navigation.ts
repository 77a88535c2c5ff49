import type { NavIconName } from "~/components/icons";

import { paths } from "./paths";

export interface NavEntry {
  label: "Home" | "Search" | "Create" | "Saved" | "Profile" | "Admin" | "Info";
  to: string;
  icon: NavIconName;
}

export interface NavViewer {
  id: string;
  role: "USER" | "ADMIN";
}

/**
 * The navigation entries (docs/rules.md#navigation) for this viewer. Create, Saved and Profile point at
 * Login for visitors (Create through a small route that mints a fresh recipe id per click).
 */
export function navEntries(viewer: NavViewer | null): NavEntry[] {
  const entries: NavEntry[] = [
    { label: "Home", to: paths.home(), icon: "home" },
    { label: "Search", to: paths.search(), icon: "search" },
    { label: "Create", to: viewer ? paths.create() : paths.login(paths.create()), icon: "create" },
    { label: "Saved", to: viewer ? paths.saved() : paths.login(paths.saved()), icon: "bookmark" },
    { label: "Profile", to: viewer ? paths.profile(viewer.id) : paths.login(), icon: "profile" },
  ];
  if (viewer?.role === "ADMIN") entries.push({ label: "Admin", to: paths.admin(), icon: "admin" });
  entries.push({ label: "Info", to: paths.info(), icon: "info" });
  return entries;
}

/**
 * An entry is active (docs/rules.md#navigation) when the current path contains its name (URLs
 * match case-insensitively); Create on editor paths; Profile only on the viewer's own profile
 * (someone else's profile is not "you").
 */
export function isActiveEntry(entry: NavEntry, pathname: string): boolean {
  const path = pathname.toLowerCase();
  if (entry.label === "Create") return path.includes("/editor/");
  if (entry.label === "Profile") {
    const own = entry.to.toLowerCase();
    return own.includes("/account/profile/") && (path === own || path.startsWith(`${own}/`));
  }
  return path.includes(entry.label.toLowerCase());
}
