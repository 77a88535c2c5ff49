// What a photo upload may weigh, for the browser's check before sending and the server's readers
// and image pipeline alike (docs/rules.md#images). Apart from app/lib/limits.ts so that pages
// without a photo form do not download these.

/** What one file and a whole form with photos may weigh. */
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
  nul: "Text may not contain NUL characters. Please remove them and try again.",
} as const;
