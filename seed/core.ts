import { todayDate } from "../app/server/queries/seq.server";

import { SeedDataSchema, type SeedData } from "./seed-data";

// The built-in set, written for this project: enough to sign in and see a feed when neither
// the sample file nor TheMealDB is available. The user ids match the sample file's, so a
// later import recognises them and adds its recipes to the same accounts.

export const CORE_PASSWORD = "ReciPals";
export const BOT_USER_ID = "recipeBot";

export function coreSeedData(): SeedData {
  return SeedDataSchema.parse({
    users: [
      {
        _id: "123",
        username: "jasminduong09",
        name: "Jasmin",
        password: CORE_PASSWORD,
        role: "USER",
        bio: "Weeknight cook who likes big flavours and few dishes to wash.",
        tags: ["Student Chef", "Fusion Explorer"],
      },
      { _id: "234", username: "danieljacob", name: "Danny", password: CORE_PASSWORD, role: "USER" },
      {
        _id: BOT_USER_ID,
        username: "recipe_bot",
        name: "Recipe Bot",
        password: CORE_PASSWORD,
        role: "USER",
        bio: "Shares recipes from TheMealDB.",
        profile: "/images/recipeBot.png",
      },
    ],
    recipes: [
      {
        recipe_id: "core-R1",
        post_id: "core-P1",
        user_created: "123",
        name: "Sesame Garlic Noodles with Crispy Tofu",
        description: "Chewy wheat noodles in a garlicky sesame-soy sauce with golden tofu, seared bok choy and scallions.",
        total_time: "80min",
        serves: 4,
        photo: "/images/noodleDish.png",
        tags: ["Vegetarian", "Noodles", "Weeknight"],
        ingredients_sec: [
          {
            _id: "core-R1I1",
            title: "Noodles and Toppings",
            ingredients: [
              "Wheat noodles (400 g)",
              "Firm tofu, pressed (1 block)",
              "Baby bok choy (3 heads)",
              "Scallions, sliced (4)",
              "Neutral oil (3 tbsp)",
              "Toasted sesame seeds (1 tbsp)",
            ],
          },
          {
            _id: "core-R1I2",
            title: "Sesame Sauce",
            ingredients: [
              "Soy sauce (3 tbsp)",
              "Toasted sesame oil (2 tbsp)",
              "Rice vinegar (1 tbsp)",
              "Honey (1 tbsp)",
              "Garlic, grated (4 cloves)",
              "Chili flakes (1 tsp)",
            ],
          },
        ],
        steps: [
          "Press the tofu for 30 minutes, then cut it into 2 cm cubes.",
          "Whisk the soy sauce, sesame oil, vinegar, honey, garlic and chili flakes into a smooth sauce.",
          "Fry the tofu in 2 tbsp of oil over medium-high heat until golden on every side, about 10 minutes.",
          "Halve the bok choy and sear it cut side down in the remaining oil for 3 minutes.",
          "Cook the noodles as the package says, then drain them, keeping a splash of the cooking water.",
          "Toss the noodles with the sauce, tofu and bok choy, loosen with the saved water, and top with scallions and sesame seeds.",
        ],
        created_at: todayDate(),
      },
    ],
    posts: [
      {
        post_id: "core-P1",
        recipe_id: "core-R1",
        created_by: "123",
        title: "Sesame Garlic Noodles with Crispy Tofu",
        caption: "My go-to weeknight noodles: crispy tofu, greens and a five-minute sesame sauce.",
        photo: "/images/noodleDish.png",
        created_at: todayDate(),
      },
    ],
  });
}
