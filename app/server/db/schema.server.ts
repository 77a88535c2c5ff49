import type { Generated } from "kysely";

import type { ReportKind } from "~/lib/reports";

// Table shapes as stored. Ordered children carry `position`; `seq` is insertion order.
export interface UsersTable {
  id: string;
  username: string;
  name: string;
  password_hash: string;
  role: "USER" | "ADMIN";
  bio: Generated<string>;
  profile: Generated<string>;
  created_at: string;
  seq: number;
  /** When an admin suspended the account (docs/rules.md#suspension); null otherwise. */
  suspended_at: Generated<string | null>;
  /** The account's email address (docs/rules.md#account-email), as typed; one account per address, without case. */
  email: Generated<string | null>;
  /** When that address was confirmed by its link; null until then. */
  email_confirmed_at: Generated<string | null>;
}

export interface AccountTokensTable {
  /** sha256 of the token in the link; the token itself is only ever in the mail. */
  token_hash: string;
  user_id: string;
  purpose: "verify" | "reset";
  email: string;
  password_stamp: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface UserTagsTable {
  user_id: string;
  position: number;
  tag: string;
}

export interface FollowsTable {
  follower_id: string;
  followee_id: string;
  created_at: string;
}

export interface RecipesTable {
  id: string;
  user_created: string | null;
  name: string;
  description: Generated<string>;
  total_time: Generated<string>;
  serves: number | null;
  photo: Generated<string>;
  created_at: string | null;
  seq: number;
}

export interface RecipeTagsTable {
  recipe_id: string;
  position: number;
  tag: string;
}

export interface IngredientSectionsTable {
  id: string;
  recipe_id: string;
  position: number;
  title: string;
}

export interface IngredientLinesTable {
  section_id: string;
  position: number;
  text: string;
}

export interface StepsTable {
  recipe_id: string;
  position: number;
  text: string;
}

export interface PostsTable {
  id: string;
  recipe_id: string;
  created_by: string | null;
  title: string;
  caption: Generated<string>;
  photo: Generated<string>;
  created_at: string | null;
  seq: number;
}

export interface LikesTable {
  post_id: string;
  user_id: string;
  created_at: string;
}

export interface CommentsTable {
  id: string;
  post_id: string;
  user_id: string | null;
  text: string;
  created_at: string;
  seq: number;
}

export interface SavedRecipesTable {
  user_id: string;
  recipe_id: string;
  created_at: string;
  seq: number;
}

/** `blocker_id` hides themself and `blocked_id` from each other (docs/rules.md#blocking-and-muting). */
export interface BlocksTable {
  blocker_id: string;
  blocked_id: string;
  created_at: string;
}

/** `muter_id` no longer sees `muted_id`'s posts, comments and notifications; the muted person is not told. */
export interface MutesTable {
  muter_id: string;
  muted_id: string;
  created_at: string;
}

export interface ReportsTable {
  id: string;
  reporter_id: string;
  target_kind: ReportKind;
  target_id: string;
  target_user_id: string | null;
  reason: "spam" | "harassment" | "inappropriate" | "other";
  text: Generated<string>;
  created_at: string;
  resolved_at: string | null;
  resolution: string | null;
  seq: number;
}

export interface ModerationLogTable {
  id: string;
  /** null: the operator's command line (npm run admin), or an admin whose account was deleted since. */
  moderator_id: string | null;
  action: "dismiss" | "remove" | "suspend" | "block-domain" | "unsuspend" | "password-reset" | "password-set" | "create-admin" | "promote" | "demote";
  /** `cook`: an "I made this" entry an ADMIN removed from its recipe page (never reported). */
  target_kind: ReportKind;
  target_id: string;
  target_user_id: string | null;
  summary: Generated<string>;
  why: Generated<string>;
  created_at: string;
  seq: number;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: string;
  expires_at: number;
}

export interface SeedRunsTable {
  name: string;
  ran_at: string;
  detail: Generated<string>;
}

export interface SignInFailuresTable {
  id: Generated<number>;
  username_key: string;
  address: string;
  at: number;
}

export interface RateEventsTable {
  id: string;
  bucket: string;
  key: string;
  at: number;
}

/** The last commit that changed each page-cache scope (migrations/20261125T0000-cache-scopes.ts). */
export interface CacheVersionsTable {
  scope: string;
  version: number;
}

/** Empty outside a transaction: the mark of a writer that names the scopes it changes. */
export interface CacheScopingTable {
  id: number;
}

/** `report`: one of the person's reports was handled (no details, no actor). */
export type NotificationKind = "like" | "comment" | "follow" | "save" | "report" | "cooked";

/** Something that happened to `user_id` (migrations/20261126T0000-notifications-shopping.ts). */
export interface NotificationsTable {
  id: string;
  user_id: string;
  actor_id: string | null;
  kind: NotificationKind;
  post_id: string | null;
  recipe_id: string | null;
  comment_id: string | null;
  created_at: string;
  read_at: string | null;
  seq: number;
}

/** "I made this": one per person and recipe (migrations/20261130T0000-cooks.ts). */
export interface CooksTable {
  id: string;
  recipe_id: string;
  user_id: string;
  /** 1 to 5 stars. */
  rating: number;
  note: Generated<string>;
  servings: number | null;
  photo: string | null;
  created_at: string;
  updated_at: string;
  seq: number;
}

export interface ShoppingRecipesTable {
  user_id: string;
  recipe_id: string;
  serves: number | null;
  /** The multiplier in hundredths (a recipe without servings), or null. */
  scale_percent: number | null;
  added_at: string;
  seq: number;
}

export interface PendingUploadsTable {
  user_id: string;
  url: string;
  created_at: number;
}

export interface ShoppingItemsTable {
  id: string;
  user_id: string;
  recipe_id: string;
  position: number;
  text: string;
  checked: Generated<number>;
}

export interface Database {
  users: UsersTable;
  user_tags: UserTagsTable;
  follows: FollowsTable;
  recipes: RecipesTable;
  recipe_tags: RecipeTagsTable;
  ingredient_sections: IngredientSectionsTable;
  ingredient_lines: IngredientLinesTable;
  steps: StepsTable;
  posts: PostsTable;
  likes: LikesTable;
  comments: CommentsTable;
  saved_recipes: SavedRecipesTable;
  notifications: NotificationsTable;
  cooks: CooksTable;
  shopping_recipes: ShoppingRecipesTable;
  pending_uploads: PendingUploadsTable;
  shopping_items: ShoppingItemsTable;
  blocks: BlocksTable;
  reports: ReportsTable;
  moderation_log: ModerationLogTable;
  mutes: MutesTable;
  sessions: SessionsTable;
  account_tokens: AccountTokensTable;
  seed_runs: SeedRunsTable;
  sign_in_failures: SignInFailuresTable;
  rate_events: RateEventsTable;
  cache_versions: CacheVersionsTable;
  cache_scoping: CacheScopingTable;
  actor_keys: ActorKeysTable;
  federation_kv: FederationKvTable;
  federation_queue: FederationQueueTable;
  remote_actors: RemoteActorsTable;
  remote_followers: RemoteFollowersTable;
  remote_follows: RemoteFollowsTable;
  remote_blocks: RemoteBlocksTable;
  remote_posts: RemotePostsTable;
  remote_likes: RemoteLikesTable;
  remote_post_likes: RemotePostLikesTable;
  remote_post_replies: RemotePostRepliesTable;
  remote_comments: RemoteCommentsTable;
  blocked_domains: BlockedDomainsTable;
}

// Federation (docs/federation.md).

/** A person's signing keys, as JSON Web Keys. */
export interface ActorKeysTable {
  user_id: string;
  rsa_public: string;
  rsa_private: string;
  ed25519_public: string;
  ed25519_private: string;
  created_at: number;
}

/** The ActivityPub library's key–value store: a JSON key, a JSON value. */
export interface FederationKvTable {
  key: string;
  value: string;
  expires_at: number | null;
}

/** The ActivityPub library's message queue (deliveries, inbox work). */
export interface FederationQueueTable {
  id: Generated<number>;
  message: string;
  run_at: number;
  taken_until: number | null;
  created_at: number;
}

/** A person on another server that we know of. */
export interface RemoteActorsTable {
  id: string;
  handle: string;
  host: string;
  name: string;
  summary: string;
  icon_url: string | null;
  url: string | null;
  inbox: string;
  shared_inbox: string | null;
  fetched_at: number;
}

/** A person on another server following someone here. */
export interface RemoteFollowersTable {
  user_id: string;
  actor_id: string;
  follow_id: string;
  created_at: number;
}

/** Someone here following a person on another server (waiting for their Accept while accepted_at is empty). */
export interface RemoteFollowsTable {
  user_id: string;
  actor_id: string;
  follow_id: string;
  accepted_at: number | null;
  created_at: number;
}

/** A person on another server someone here blocked (nothing between them either way) or muted (their posts not shown). */
export interface RemoteBlocksTable {
  user_id: string;
  actor_id: string;
  kind: "block" | "mute";
  created_at: number;
}

/** A post a person on another server sent us (someone here follows them), its text without tags. */
export interface RemotePostsTable {
  id: string;
  actor_id: string;
  url: string;
  name: string | null;
  text: string;
  image_url: string | null;
  published_at: number;
  received_at: number;
}

/** A like given here to a post from another server. */
export interface RemotePostLikesTable {
  user_id: string;
  post_id: string;
  like_id: string;
  created_at: number;
}

/** A reply written here to a post from another server (our Note's id is an address here). */
export interface RemotePostRepliesTable {
  id: string;
  user_id: string;
  post_id: string;
  text: string;
  created_at: number;
}

/** A like given a post here by a person on another server. */
export interface RemoteLikesTable {
  post_id: string;
  actor_id: string;
  like_id: string;
  created_at: number;
}

/** A reply to a post here from a person on another server, its text without tags. */
export interface RemoteCommentsTable {
  id: string;
  post_id: string;
  actor_id: string;
  url: string;
  text: string;
  created_at: number;
}

/** A server an admin blocked (its host name; its subdomains are blocked with it). */
export interface BlockedDomainsTable {
  domain: string;
  blocked_by: string | null;
  created_at: number;
}
