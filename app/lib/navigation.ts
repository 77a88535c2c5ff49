import { paths } from "./paths";

export interface NavEntry {
  label: "Home" | "Search" | "Create" | "Saved" | "Profile" | "Admin" | "Info";
  to: string;
  icon: string;
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
    { label: "Home", to: paths.home(), icon: "⌂" },
    { label: "Search", to: paths.search(), icon: "⌕" },
    { label: "Create", to: viewer ? paths.create() : paths.login(paths.create()), icon: "+" },
    { label: "Saved", to: viewer ? paths.saved() : paths.login(paths.saved()), icon: "★" },
    { label: "Profile", to: viewer ? paths.profile(viewer.id) : paths.login(), icon: "☺" },
  ];
  if (viewer?.role === "ADMIN") entries.push({ label: "Admin", to: paths.admin(), icon: "⚙" });
  entries.push({ label: "Info", to: paths.info(), icon: "i" });
  return entries;
}

/** An entry is active (docs/rules.md#navigation) when the current path contains its name (URLs match case-insensitively). */
export function isActiveEntry(entry: NavEntry, pathname: string): boolean {
  const path = pathname.toLowerCase();
  if (entry.label === "Create") return path.includes("/editor/");
  return path.includes(entry.label.toLowerCase());
}
