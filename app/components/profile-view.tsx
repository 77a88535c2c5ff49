
import { paths } from "~/lib/paths";
import type { PostThumb } from "~/server/queries/posts.server";
import type { CookedRecipe } from "~/server/queries/cooks.server";
import type { ProfileSavedItem, ProfileTab } from "~/server/queries/profiles.server";

import { EmptyState } from "./empty-state";
import { Link } from "./link";
import { Photo, type Placeholders } from "./photo";

/** Squares in a row of the grid (app/styles/profile.css). */
const GRID_ROW = 3;

export const countLabel = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The profile's tab links (`?tab=saved`, `?tab=cooked`), so each works without JavaScript. */
export function profileTabHref(uid: string, tab: ProfileTab): string {
  return tab === "recipes" ? paths.profile(uid) : `${paths.profile(uid)}?tab=${tab}`;
}

/** The recipes tab is "My Recipes" on your own profile and "Recipes" on anyone else's. */
export function ProfileTabs({ uid, tab, isOwn }: { uid: string; tab: ProfileTab; isOwn: boolean }) {
  const tabs: { id: ProfileTab; label: string }[] = [
    { id: "recipes", label: isOwn ? "My Recipes" : "Recipes" },
    { id: "saved", label: "Saved" },
    { id: "cooked", label: "Cooked" },
  ];
  return (
    <nav className="profile-tabs" aria-label="Profile sections">
      {tabs.map((item) => (
        <Link
          key={item.id}
          to={profileTabHref(uid, item.id)}
          className="profile-tabs__tab"
          aria-current={tab === item.id ? "page" : undefined}
          preventScrollReset
        >
          {item.label}
        </Link>
      ))}
    </nav>
  );
}

/**
 * A square of the grid. The first row is on a phone's first screen: fetched at once, the very
 * first before anything else (often the page's largest paint); the rest when scrolled near.
 */
function Thumb({ photo, alt, index, placeholders }: { photo: string; alt: string; index: number; placeholders: Placeholders }) {
  return photo ? (
    <Photo className="profile-grid__img" src={photo} placeholder={placeholders[photo]} slot="grid" alt={alt} width={240} height={240} eager={index < GRID_ROW} first={index === 0} />
  ) : (
    // No photo: the name stands in for it.
    <span className="profile-grid__img profile-grid__img--empty">{alt}</span>
  );
}

/** The recipes grid: each thumbnail opens the post viewer. */
export function PostGrid({ uid, posts, isOwn, placeholders }: { uid: string; posts: PostThumb[]; isOwn: boolean; placeholders: Placeholders }) {
  if (posts.length === 0) {
    return isOwn ? (
      <EmptyState title="No recipes yet" text="Share your first recipe: it appears here and in your followers' feeds." action={{ to: paths.create(), label: "Create a recipe" }} />
    ) : (
      <EmptyState title="No recipes yet" text="Nothing shared here so far." />
    );
  }
  return (
    <ul className="profile-grid" aria-label={isOwn ? "My Recipes" : "Recipes"}>
      {posts.map((post, index) => (
        <li key={post.post_id}>
          <Link to={paths.post(uid, post.post_id)} className="profile-grid__item" title={post.title}>
            <Thumb photo={post.photo} alt={post.title} index={index} placeholders={placeholders} />
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** The Saved grid: a saved recipe opens its post when it has one, else the recipe. */
export function SavedGrid({ saved, isOwn, placeholders }: { saved: ProfileSavedItem[]; isOwn: boolean; placeholders: Placeholders }) {
  if (saved.length === 0) {
    return isOwn ? (
      <EmptyState title="No saved recipes yet" text="Save recipes you want to cook: they collect here." action={{ to: paths.search(), label: "Find recipes" }} />
    ) : (
      <EmptyState title="No saved recipes yet" text="Nothing saved here so far." />
    );
  }
  return (
    <ul className="profile-grid" aria-label="Saved">
      {saved.map((item, index) => {
        const href =
          item.post_id && item.post_author_id ? paths.post(item.post_author_id, item.post_id) : paths.recipe(item.recipe_id);
        return (
          <li key={item.recipe_id}>
            <Link to={href} className="profile-grid__item" title={item.name}>
              <Thumb photo={item.photo} alt={item.name} index={index} placeholders={placeholders} />
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

/** The Cooked tab: what the person said they made, each with its stars, opening the recipe at its entry. */
export function CookedGrid({ cooked, isOwn, placeholders }: { cooked: CookedRecipe[]; isOwn: boolean; placeholders: Placeholders }) {
  if (cooked.length === 0) {
    return isOwn ? (
      <EmptyState title="Nothing cooked yet" text="Made a recipe? Say so with “I made this” on its page: it appears here." action={{ to: paths.search(), label: "Find recipes" }} />
    ) : (
      <EmptyState title="Nothing cooked yet" text="Nothing made here so far." />
    );
  }
  return (
    <ul className="profile-grid" aria-label="Cooked">
      {cooked.map((item, index) => (
        <li key={item.cook_id}>
          <Link to={`${paths.recipe(item.recipe.id)}#cook-${item.cook_id}`} className="profile-grid__item" title={`${item.recipe.name}: ${item.rating} of 5 stars`}>
            <Thumb photo={item.photo ?? item.recipe.photo} alt={`${item.recipe.name}, rated ${item.rating} out of 5`} index={index} placeholders={placeholders} />
          </Link>
        </li>
      ))}
    </ul>
  );
}
