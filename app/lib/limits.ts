// Input limits the browser needs too (maxLength attributes, counters) as well as the server's
// validation: one copy, in a module both may import. The recipe editor's limits live beside its
// form model (app/lib/recipe-form.ts); the rules themselves are written down in docs/rules.md.

/** People: names, usernames, passwords and bios. */
export const USER_LIMITS = { name: 60, usernameMin: 3, username: 30, password: 200, bio: 300 } as const;

/** A comment's text, after trimming. */
export const COMMENT_MAX = 1000;

/** Search text: longer input is cut (only the first words are searched anyway). */
export const MAX_QUERY_LENGTH = 1000;

/** Photos: what one file and a whole form with photos may weigh (the browser checks before sending). */
export const UPLOAD_LIMITS = {
  /** Bytes received for one file. */
  fileBytes: 10 * 1024 * 1024,
  /** Bytes of a whole form with photos: two files and the text around them. */
  formBytes: 22 * 1024 * 1024,
} as const;

export const UPLOAD_MESSAGES = {
  fileTooLarge: "The image is too large (10 MB at most).",
  formTooLarge: "The form is too large to send.",
  unreadableForm: "The form could not be read. Please try again.",
  notAForm: "Please send the form as a web form (application/x-www-form-urlencoded or multipart/form-data).",
} as const;
