import { db, type DB } from "../db/connection.server";
import { preparedRead } from "../db/prepared-read.server";
import { getFollowCounts, isFollowing, listFollowers, listFollowing, type FollowRow } from "./follows.server";
import { listPersonCooks, type CookedRecipe } from "./cooks.server";
import { listUserPostsPage, type PostThumb } from "./posts.server";
import { getSessionUserById, getUserProfile, type UserProfile } from "./users.server";
import { shownPerson } from "./visibility.server";

export type ProfileTab = "recipes" | "saved" | "cooked";

/** A saved recipe on the profile's Saved tab: links to its post (by the post's author) when it has one. */
export interface ProfileSavedItem {
  recipe_id: string;
  name: string;
  photo: string;
  post_id: string | null;
  post_author_id: string | null;
}

export interface ProfilePage {
  profile: UserProfile;
  counts: { posts: number; followers: number; following: number };
  viewerFollows: boolean;
  tab: ProfileTab;
  /** The recipes tab's page of posts (`?page=`); empty on the other tabs. */
  posts: PostThumb[];
  postsPage: { page: number; hasMore: boolean };
  saved: ProfileSavedItem[];
  /** What the person said they made ("I made this"), newest first. */
  cooked: CookedRecipe[];
}

const postCountRow = preparedRead((database, userId: string) =>
  database
    .selectFrom("posts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("created_by", "=", userId),
);

export async function countUserPosts(userId: string, database: DB = db): Promise<number> {
  const [row] = await postCountRow(database, userId);
  return Number(row?.n ?? 0);
}

/** The profile owner's saved recipes, most recently saved first; none by the people in `without` (the viewer's lens). */
export async function listProfileSaved(userId: string, without: readonly string[], database: DB = db): Promise<ProfileSavedItem[]> {
  return database
    .selectFrom("saved_recipes as s")
    .innerJoin("recipes as r", "r.id", "s.recipe_id")
    .leftJoin("posts as p", "p.recipe_id", "r.id")
    .select(["r.id as recipe_id", "r.name", "r.photo", "p.id as post_id", "p.created_by as post_author_id"])
    .where("s.user_id", "=", userId)
    .where(shownPerson("r.user_created", without))
    .orderBy("s.seq", "desc")
    .execute();
}

/** Everything the profile page shows; undefined when the user does not exist. Only the open tab's grid is read. */
export async function getProfilePage(
  {
    userId,
    viewerId,
    tab,
    page = 1,
    without = [],
  }: { userId: string; viewerId: string; tab: ProfileTab; page?: number; without?: readonly string[] },
  database: DB = db,
): Promise<ProfilePage | undefined> {
  const profile = await getUserProfile(userId, database);
  if (!profile) return undefined;
  const [posts, follows, viewerFollows] = await Promise.all([
    countUserPosts(userId, database),
    getFollowCounts(userId, database),
    viewerId === userId ? false : isFollowing({ followerId: viewerId, followeeId: userId }, database),
  ]);
  const grid = tab === "recipes" ? await listUserPostsPage(userId, page, database) : { posts: [], page, hasMore: false };
  return {
    profile,
    counts: { posts, ...follows },
    viewerFollows,
    tab,
    posts: grid.posts,
    postsPage: { page: grid.page, hasMore: grid.hasMore },
    saved: tab === "saved" ? await listProfileSaved(userId, without, database) : [],
    cooked: tab === "cooked" ? await listPersonCooks(userId, { without }, database) : [],
  };
}

/** The Followers / Following dialog of `userId` as `viewerId` sees it; undefined for an unknown user. */
export async function getFollowList(
  { kind, userId, viewerId, without }: { kind: "followers" | "following"; userId: string; viewerId: string; without?: readonly string[] },
  database: DB = db,
): Promise<{ uid: string; isOwn: boolean; viewerId: string; rows: FollowRow[] } | undefined> {
  if (!(await getSessionUserById(userId, database))) return undefined;
  const list = kind === "followers" ? listFollowers : listFollowing;
  return { uid: userId, isOwn: userId === viewerId, viewerId, rows: await list({ userId, viewerId, without }, database) };
}
