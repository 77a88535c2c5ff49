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

/** A user edits their own profile; an ADMIN may edit anyone's. */
export function canEditProfile(actor: Actor | null | undefined, userId: string): boolean {
  if (!actor) return false;
  return isAdmin(actor) || actor.id === userId;
}

/** Likes are one's own; an ADMIN may set anyone's (the API's whole-post PUT). */
export function canLikeAs(actor: Actor | null | undefined, userId: string): boolean {
  return actor !== null && actor !== undefined && (actor.id === userId || isAdmin(actor));
}

/** Removing comments in bulk (the API's whole-post PUT) is the admin's. */
export const canRemoveComments = (actor: Actor | null | undefined): boolean => isAdmin(actor);

/** A comment is deleted by its author, by the creator of the recipe it is on, or by an ADMIN. */
export function canDeleteComment(actor: Actor | null | undefined, comment: { authorId: string | null; recipeCreatorId: string | null }): boolean {
  if (!actor) return false;
  return isAdmin(actor) || actor.id === comment.authorId || actor.id === comment.recipeCreatorId;
}
