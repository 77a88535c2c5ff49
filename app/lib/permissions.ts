// Who may do what (docs/rules.md#who-may-do-what). Pure, so the server's services enforce and the
// UI hides with the same rule.
export interface Actor {
  id: string;
  role: "USER" | "ADMIN";
}

export const isAdmin = (actor: Actor | null | undefined): boolean => actor?.role === "ADMIN";

/** The creator edits and deletes a recipe; an ADMIN may too. */
export function canEditRecipe(actor: Actor | null | undefined, creatorId: string | null): boolean {
  if (!actor) return false;
  return isAdmin(actor) || (creatorId !== null && actor.id === creatorId);
}

/**
 * What is a person's own (their profile, likes, followers, cook entries) they change themselves;
 * an ADMIN may change anyone's.
 */
export function canActFor(actor: Actor | null | undefined, userId: string): boolean {
  if (!actor) return false;
  return isAdmin(actor) || actor.id === userId;
}

/** Removing comments in bulk (the API's whole-post PUT) is the admin's. */
export const canRemoveComments = (actor: Actor | null | undefined): boolean => isAdmin(actor);

/** A comment is deleted by its author, by the creator of the recipe it is on, or by an ADMIN. */
export function canDeleteComment(actor: Actor | null | undefined, comment: { authorId: string | null; recipeCreatorId: string | null }): boolean {
  if (!actor) return false;
  return isAdmin(actor) || actor.id === comment.authorId || actor.id === comment.recipeCreatorId;
}
