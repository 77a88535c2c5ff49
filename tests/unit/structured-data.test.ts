import { describe, expect, it } from "vitest";

import { isoDuration, recipeJsonLd } from "~/lib/structured-data";

describe("ISO 8601 durations", () => {
  it.each([
    ["80min", "PT1H20M"],
    ["45 minutes", "PT45M"],
    ["1 hour 20 mins", "PT1H20M"],
    ["2 hrs", "PT2H"],
    ["1.5 hours", "PT1H30M"],
    ["1h 5m", "PT1H5M"],
  ])("%s → %s", (text, iso) => expect(isoDuration(text)).toBe(iso));

  it("gives up on text it cannot read", () => {
    for (const text of ["", "a while", "overnight", "0 min", "20-30 min"]) expect(isoDuration(text)).toBeNull();
  });
});

describe("Recipe JSON-LD", () => {
  it("carries the schema.org fields with absolute URLs and ordered HowToSteps", () => {
    const ld = recipeJsonLd(
      {
        name: "Stir Fry",
        description: "Quick",
        photo: "/images/noodleDish.png",
        total_time: "80min",
        serves: 4,
        tags: ["Savory", "Asian"],
        ingredients_sec: [{ ingredients: ["Rice"] }, { ingredients: ["Soy", "Oil"] }],
        steps: ["Boil", "Fry"],
        creator: { username: "jasmin" },
        created_at: null,
      },
      { origin: "https://recipals.example", url: "https://recipals.example/ReciPals/Recipes/x", likes: 2, comments: 1 },
    );
    expect(ld).toMatchObject({
      "@type": "Recipe",
      image: ["https://recipals.example/images/noodleDish.png"],
      author: { "@type": "Person", name: "jasmin" },
      recipeIngredient: ["Rice", "Soy", "Oil"],
      recipeInstructions: [
        { "@type": "HowToStep", position: 1, text: "Boil" },
        { "@type": "HowToStep", position: 2, text: "Fry" },
      ],
      recipeYield: "4",
      totalTime: "PT1H20M",
      keywords: "Savory, Asian",
      commentCount: 1,
    });
  });
});
