// Input limits the browser needs too (maxLength attributes, counters) as well as the server's
// validation: one copy, in a module both may import. The recipe editor's limits live beside its
// form model (app/lib/recipe-form.ts); the rules themselves are written down in docs/rules.md.

/** People: names, usernames, passwords and bios. */
export const USER_LIMITS = { name: 60, usernameMin: 3, username: 30, password: 200, bio: 300 } as const;

/** A comment's text, after trimming. */
export const COMMENT_MAX = 1000;

/** Search text: longer input is cut (only the first words are searched anyway). */
export const MAX_QUERY_LENGTH = 1000;
