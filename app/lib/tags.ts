// The profile tag catalogue (docs/rules.md#profile-tags), in its three groups.
export const TAG_GROUPS = [
  {
    title: "Skill Level / Role",
    tags: ["Home Cook", "Student Chef", "Baker", "Beginner", "Professional Chef", "Food Critic"],
  },
  {
    title: "Cultural Cuisine Interest",
    tags: [
      "Asian Food Lover",
      "Italian Cuisine",
      "Latin Flavors",
      "Fusion Explorer",
      "Indian Spices",
      "Soul Food Fan",
      "Middle Eastern Eats",
    ],
  },
  {
    title: "Dietary Preferences / Cooking Values",
    tags: ["Vegetarian", "Vegan", "Gluten-Free", "Halal", "Kosher", "Dairy-Free", "Sustainable"],
  },
] as const;

export const PROFILE_TAGS: readonly string[] = TAG_GROUPS.flatMap((group) => group.tags);
export const MAX_PROFILE_TAGS = 3;
export const TAG_LIMIT_MESSAGE =
  "You can only select up to 3 tags. Please deselect a tag before selecting a new one.";
