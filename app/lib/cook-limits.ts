// "I made this" (docs/rules.md#i-made-this): limits and messages, for the entry's form and the
// server.

export const COOK_LIMITS = {
  noteMax: 500,
  servingsMax: 100,
} as const;

export const COOK_MESSAGES = {
  rating: "Choose a rating from 1 to 5 stars.",
  noteTooLong: `The note can be at most ${COOK_LIMITS.noteMax} characters.`,
  servings: `Servings made must be a whole number from 1 to ${COOK_LIMITS.servingsMax}.`,
  ownRecipe: "You cannot say you made your own recipe.",
  already: "You already said you made this recipe. Change your entry instead.",
  missing: "You have not said you made this recipe.",
  recipeMissing: "Recipe not found.",
  notYours: "You may only change your own entry.",
  photoUploadOnly: "Please send the photo itself, as an image data URL (data:image/…;base64,…); addresses of pictures are not taken.",
} as const;

/** The question before an entry is deleted (one's own) or removed (an ADMIN's). */
export const COOK_DELETE_MESSAGES = {
  uncook: "Delete your entry? This cannot be undone.",
  "remove-cook": "Remove this entry? This cannot be undone.",
} as const;
