// Share previews and schema.org data (docs/rules.md#share-previews). Pure: the route passes absolute URLs.

import { RECIPE_PLACEHOLDER_IMAGE } from "./paths";


/** '80min' → 'PT1H20M', '1 hour 20 mins' → 'PT1H20M', '45 minutes' → 'PT45M'; null when unreadable. */
export function isoDuration(text: string | null | undefined): string | null {
  if (!text) return null;
  const t = text.toLowerCase().replace(/\s+/g, " ").trim();
  const match = /^(?:(\d+(?:\.\d+)?) ?(?:h|hr|hrs|hour|hours))?[ ,]*(?:and )?(?:(\d+) ?(?:m|min|mins|minute|minutes))?$/.exec(t);
  if (!match || (!match[1] && !match[2])) return null;
  const total = Math.round(Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0));
  if (total <= 0) return null;
  const hours = Math.floor(total / 60);
  const minutes = total % 60;
  return `PT${hours ? `${hours}H` : ""}${minutes ? `${minutes}M` : ""}`;
}

export interface RecipeForStructuredData {
  name: string;
  description: string;
  photo: string;
  total_time: string;
  serves: number | null;
  tags: string[];
  ingredients_sec: { ingredients: string[] }[];
  steps: string[];
  creator: { username: string } | null;
  created_at: string | null;
}

export function absoluteUrl(origin: string, pathOrUrl: string): string {
  return new URL(pathOrUrl || RECIPE_PLACEHOLDER_IMAGE, origin).toString();
}

export function recipeJsonLd(
  recipe: RecipeForStructuredData,
  { origin, url, likes, comments, cooks }: { origin: string; url: string; likes: number; comments: number; cooks?: CooksForStructuredData },
) {
  const totalTime = isoDuration(recipe.total_time);
  return {
    "@context": "https://schema.org",
    "@type": "Recipe",
    name: recipe.name,
    image: [absoluteUrl(origin, recipe.photo)],
    author: { "@type": "Person", name: recipe.creator?.username ?? "Unknown User" },
    description: recipe.description,
    url,
    ...(recipe.created_at ? { datePublished: recipe.created_at.slice(0, 10) } : {}),
    recipeIngredient: recipe.ingredients_sec.flatMap((section) => section.ingredients),
    recipeInstructions: recipe.steps.map((text, index) => ({ "@type": "HowToStep", position: index + 1, text })),
    recipeYield: String(recipe.serves ?? 1),
    ...(totalTime ? { totalTime } : {}),
    keywords: recipe.tags.join(", "),
    interactionStatistic: [
      { "@type": "InteractionCounter", interactionType: "https://schema.org/LikeAction", userInteractionCount: likes },
      { "@type": "InteractionCounter", interactionType: "https://schema.org/CommentAction", userInteractionCount: comments },
    ],
    commentCount: comments,
    // "I made this" entries: their average, and the latest as reviews (docs/rules.md#i-made-this).
    ...(cooks && cooks.count > 0 && cooks.average !== null
      ? {
          aggregateRating: { "@type": "AggregateRating", ratingValue: cooks.average, ratingCount: cooks.count, bestRating: 5, worstRating: 1 },
          review: cooks.latest.map((entry) => ({
            "@type": "Review",
            author: { "@type": "Person", name: entry.person.username },
            datePublished: entry.created_at.slice(0, 10),
            ...(entry.note ? { reviewBody: entry.note } : {}),
            reviewRating: { "@type": "Rating", ratingValue: entry.rating, bestRating: 5, worstRating: 1 },
          })),
        }
      : {}),
  };
}

/** What a recipe's JSON-LD tells of its "I made this" entries. */
export interface CooksForStructuredData {
  count: number;
  average: number | null;
  latest: ReadonlyArray<{ rating: number; note: string; created_at: string; person: { username: string } }>;
}

/** Open Graph and Twitter card tags for Remix's `meta`. */
export function shareMeta({ title, description, image, url, type = "website" }: { title: string; description: string; image: string; url: string; type?: string }) {
  return [
    { property: "og:title", content: title },
    { property: "og:description", content: description },
    { property: "og:image", content: image },
    { property: "og:url", content: url },
    { property: "og:type", content: type },
    { property: "og:site_name", content: "ReciPals" },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: image },
    { tagName: "link", rel: "canonical", href: url },
  ];
}
