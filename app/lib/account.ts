import { BASE } from "./paths";

// One's own account (docs/rules.md#own-account): its addresses, kept out of paths.ts so pages
// without these links do not download them.

export const EXPORT_PATH = `${BASE}/Account/Export`;
export const DELETE_ACCOUNT_PATH = `${BASE}/Account/Delete`;
export const ACCOUNT_DELETED = "Your account and everything in it were deleted.";
