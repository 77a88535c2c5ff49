import crypto from "node:crypto";

import { sql, type RawBuilder, type SqlBool } from "kysely";

import { db, type DB } from "../db/connection.server";
import { commentCount } from "./likes.server";
import { nextSeq, todayDate } from "./seq.server";
import { amongPeople, contains, shownPerson, type PersonList } from "./visibility.server";

export interface CommentView {
  comment_id: string;
  text: string;
  created_at: string;
  author: { id: string; username: string; profile: string } | null;
  /**
   * Shown, collapsed, only to the owner of the recipe it is on although a block hides its author
   * from them: `viewer` when they blocked the author, `author` when the author blocked them.
   */
  blocked?: "viewer" | "author";
  /** A reply from another server (docs/federation.md): no author here, their handle and the original instead. */
  remote?: { handle: string; url: string };
}

/**
 * A post's comments in the order written, but not those by the people in `without` (the reader's
 * lens) — except, with `ownerSees`, those by the people in it whose account is not suspended: the
 * recipe's owner sees the comments of people a block hides from them, to delete or report them
 * (docs/rules.md#blocking-and-muting). Such comments say so (`blocked`, told apart by `blocking`).
 */
export async function listComments(
  postId: string,
  { without = [], ownerSees, blocking = [] }: { without?: PersonList; ownerSees?: PersonList; blocking?: PersonList } = {},
  database: DB = db,
): Promise<CommentView[]> {
  const rows = await database
    .selectFrom("comments as c")
    .leftJoin("users as u", "u.id", "c.user_id")
    .select(["c.id", "c.text", "c.created_at", "u.id as author_id", "u.username", "u.profile"])
    .$if(ownerSees !== undefined, (query) => query.select(amongPeople("c.user_id", ownerSees!).as("from_hidden")))
    .where("c.post_id", "=", postId)
    .where((eb) =>
      ownerSees === undefined
        ? shownPerson("c.user_id", without)
        : eb.or([shownPerson("c.user_id", without), eb.and([amongPeople("c.user_id", ownerSees), eb("u.suspended_at", "is", null)])]),
    )
    .orderBy("c.seq")
    .execute();
  const comments: CommentView[] = [];
  for (const row of rows) {
    const author = row.author_id && row.username ? { id: row.author_id, username: row.username, profile: row.profile ?? "" } : null;
    const comment: CommentView = { comment_id: row.id, text: row.text, created_at: row.created_at, author };
    // SQLite answers the condition as 0 or 1, PostgreSQL as a boolean.
    if ("from_hidden" in row && Number(row.from_hidden) === 1 && author) comment.blocked = (await contains(blocking, author.id, database)) ? "viewer" : "author";
    comments.push(comment);
  }
  return comments;
}

/** A post's comments, written here and replies from other servers. */
export async function countComments(postId: string, database: DB = db): Promise<number> {
  const row = await database.selectFrom("posts as p").select(commentCount("p.id").as("n")).where("p.id", "=", postId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

type NewComment = { postId: string; userId: string; text: string; author?: CommentView["author"] };
/** Appends a comment by the session user (the actor is never taken from the request body). */
export async function addComment(comment: NewComment & { onlyIf?: null }, database?: DB): Promise<CommentView>;
export async function addComment(comment: NewComment & { onlyIf: RawBuilder<SqlBool> | null }, database?: DB): Promise<CommentView | false>;
export async function addComment(
  {
    postId,
    userId,
    text,
    author: known,
    onlyIf = null,
  }: NewComment & { /** Written only while this holds (a block's); false when it did not. */ onlyIf?: RawBuilder<SqlBool> | null },
  database: DB = db,
): Promise<CommentView | false> {
  const id = crypto.randomUUID();
  const createdAt = todayDate();
  const added = await database
    .insertInto("comments")
    .columns(["id", "post_id", "user_id", "text", "created_at", "seq"])
    .expression(
      database
        .selectNoFrom((eb) => [eb.val(id).as("id"), eb.val(postId).as("post_id"), eb.val(userId).as("user_id"), eb.val(text).as("text"), eb.val(createdAt).as("created_at"), nextSeq(database, "comments").as("seq")])
        .where(onlyIf ?? sql<SqlBool>`true`),
    )
    .executeTakeFirst();
  if (Number(added.numInsertedOrUpdatedRows ?? 0) === 0) return false;
  // A caller that knows who writes (the signed-in person) saves the read.
  const author = known ?? (await database.selectFrom("users").select(["id", "username", "profile"]).where("id", "=", userId).executeTakeFirst());
  return { comment_id: id, text, created_at: createdAt, author: author ?? null };
}

/** Deletes a comment of the given post; false when it is already gone. */
export async function deleteComment({ postId, commentId }: { postId: string; commentId: string }, database: DB = db): Promise<boolean> {
  const result = await database.deleteFrom("comments").where("id", "=", commentId).where("post_id", "=", postId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** A comment with who wrote it and where it is: its post, recipe and the recipe's creator; undefined when it is gone. */
export async function getCommentOwnership(
  commentId: string,
  database: DB = db,
): Promise<{ commentId: string; postId: string; recipeId: string; text: string; authorId: string | null; recipeCreatorId: string | null } | undefined> {
  const row = await database
    .selectFrom("comments as c")
    .innerJoin("posts as p", "p.id", "c.post_id")
    .innerJoin("recipes as r", "r.id", "p.recipe_id")
    .select(["c.id", "c.post_id", "c.text", "c.user_id", "p.recipe_id", "r.user_created"])
    .where("c.id", "=", commentId)
    .executeTakeFirst();
  return row && { commentId: row.id, postId: row.post_id, recipeId: row.recipe_id, text: row.text, authorId: row.user_id, recipeCreatorId: row.user_created };
}
