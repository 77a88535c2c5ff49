// Credits and links for the Info page: one place to change them. This project's own source
// address is configuration, not code (app/server/http/site.server.ts).
export const SITE = {
  name: "ReciPals",
  creators: ["Jasmin Duong", "Daniel Jacob"],
  originalRepositories: {
    webApp: "https://github.com/jasminduong/recipals",
    server: "https://github.com/jasminduong/recipals-node-server-app",
  },
  features: [
    { title: "Home", text: "A feed of recipe posts: people you follow first, then everyone else." },
    { title: "Login and Signup", text: "Create an account in two steps and pick up to three tags that describe you." },
    { title: "Profile", text: "Your recipes, saved recipes, followers and following, and a profile you can edit." },
    { title: "Search", text: "Find recipes by name, ingredient or tag, and people by name or username." },
    { title: "Recipe and Post", text: "Full recipes with ingredients and steps; like, comment on and save them." },
    { title: "Admin Management", text: "Administrators manage users, recipes, posts and comments." },
  ],
} as const;
