// Every product URL sits under one base (docs/rules.md#urls-and-ids). Build links here, never by hand.
export const BASE = "/ReciPals";

export const paths = {
  home: () => `${BASE}/Home`,
  search: () => `${BASE}/Search`,
  create: () => `${BASE}/Create`,
  editor: (rid: string) => `${BASE}/Editor/${encodeURIComponent(rid)}`,
  recipe: (rid: string) => `${BASE}/Recipes/${encodeURIComponent(rid)}`,
  saveRecipe: (rid: string) => `${BASE}/Recipes/${encodeURIComponent(rid)}/Save`,
  likePost: (pid: string) => `${BASE}/Posts/${encodeURIComponent(pid)}/Like`,
  homeLikes: (pid: string) => `${BASE}/Home/Likes/${encodeURIComponent(pid)}`,
  recipeLikes: (rid: string) => `${BASE}/Recipes/${encodeURIComponent(rid)}/Likes`,
  saved: () => `${BASE}/Saved`,
  notifications: () => `${BASE}/Notifications`,
  shoppingList: () => `${BASE}/ShoppingList`,
  info: () => `${BASE}/Info`,
  account: () => `${BASE}/Account`,
  login: (redirectTo?: string) =>
    redirectTo ? `${BASE}/Account/Login?redirectTo=${encodeURIComponent(redirectTo)}` : `${BASE}/Account/Login`,
  logout: () => `${BASE}/Account/Logout`,
  signup: () => `${BASE}/Account/Signup`,
  signupTags: () => `${BASE}/Account/SignupTags`,
  forgotPassword: () => `${BASE}/Account/Forgot`,
  resetPassword: (token: string) => `${BASE}/Account/Reset/${encodeURIComponent(token)}`,
  verifyEmail: (token: string) => `${BASE}/Account/Verify/${encodeURIComponent(token)}`,
  profile: (uid: string) => `${BASE}/Account/Profile/${encodeURIComponent(uid)}`,
  profileEdit: (uid: string) => `${BASE}/Account/Profile/${encodeURIComponent(uid)}/Edit`,
  post: (uid: string, pid: string) =>
    `${BASE}/Account/Profile/${encodeURIComponent(uid)}/Posts/${encodeURIComponent(pid)}`,
  follow: (uid: string) => `${BASE}/Account/Follow/${encodeURIComponent(uid)}`,
  remotePeople: () => `${BASE}/Account/RemotePeople`,
  remotePosts: () => `${BASE}/Account/RemotePosts`,
  profileFollowers: (uid: string) => `${BASE}/Account/Profile/${encodeURIComponent(uid)}/Followers`,
  profileFollowing: (uid: string) => `${BASE}/Account/Profile/${encodeURIComponent(uid)}/Following`,
  postLikes: (uid: string, pid: string) =>
    `${BASE}/Account/Profile/${encodeURIComponent(uid)}/Posts/${encodeURIComponent(pid)}/Likes`,
  admin: () => `${BASE}/Account/Admin`,
  adminUsers: () => `${BASE}/Account/Admin/Users`,
  adminFederation: () => `${BASE}/Account/Admin/Federation`,
  adminUser: (uid: string) => `${BASE}/Account/Admin/Users/${encodeURIComponent(uid)}`,
  adminRecipes: () => `${BASE}/Account/Admin/Recipes`,
  adminRecipe: (rid: string) => `${BASE}/Account/Admin/Recipes/${encodeURIComponent(rid)}`,
  /** A comment's delete confirmation (GET) and deletion (POST, `confirm=yes`). */
  deleteComment: (commentId: string) => `${BASE}/Comments/${encodeURIComponent(commentId)}/Delete`,
  adminRecipePost: (rid: string) => `${BASE}/Account/Admin/Recipes/${encodeURIComponent(rid)}/Post`,
} as const;

export const DEFAULT_PROFILE_IMAGE = "/images/profile.png";

/** A recipe's picture until one is chosen. */
export const RECIPE_PLACEHOLDER_IMAGE = "/images/recipe-placeholder.png";

/**
 * Only same-site paths are followed after sign-in; anything else (absolute URLs,
 * protocol-relative `//evil`, backslash tricks) falls back to `fallback`. Control characters are
 * refused too: browsers drop tabs and newlines from URLs, so `/<TAB>/evil` would become `//evil`
 * (another site), and a newline cannot go into a Location header at all. A Location header
 * carries bytes, so characters beyond ASCII are percent-encoded (as a browser sends them).
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback: string = paths.home()): string {
  if (!to || typeof to !== "string") return fallback;
  if (!to.startsWith("/") || to.startsWith("//") || to.includes("\\")) return fallback;
  if (/[\u0000-\u001F\u007F]/.test(to)) return fallback;
  try {
    return to.replace(/[^\u0000-\u007F]+/gu, (chars) => encodeURIComponent(chars));
  } catch {
    return fallback; // a lone surrogate: not text a URL can carry
  }
}
