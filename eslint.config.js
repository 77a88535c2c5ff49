// Lint: TypeScript's recommended rules, React hooks, and the layers of this codebase as import
// boundaries (docs/architecture.md): what may import what is written here once, and `npm test`
// fails when a change crosses a line.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A value import from a server module: in browser code it would be `undefined` (the compiler empties them). */
const SERVER_MODULES = {
  group: ["~/server/*", "~/server/**", "**/server/*", "**/server/**", "*.server", "**/*.server"],
  // Types are erased at build time, so a component may describe server data by its type.
  allowTypeImports: true,
  message: "Browser code must not import values from server modules (*.server.ts): the build empties them in the browser. Type imports are fine.",
};
const COMPONENTS = {
  group: ["~/components/*", "**/components/*"],
  message: "Server modules must not import components: what they share belongs in app/lib.",
};
const ROUTES = {
  group: ["~/routes/*", "**/routes/*"],
  // `import type { action }`: a fetcher is typed by the action it posts to; nothing is loaded.
  allowTypeImports: true,
  message: "Only Remix imports routes: move what they share into app/server or app/lib (a type import of a route's action is fine).",
};
const OUTSIDE_APP = {
  group: ["**/seed", "**/seed/*", "**/scripts/*", "../../seed/*", "../seed/*"],
  message: "The app never imports seed/ or scripts/: they use the app, not the other way round.",
};
const SERVICES = {
  group: ["~/server/services/*", "../services/*", "**/services/*"],
  message: "Queries are the bottom layer: services call queries, never the reverse.",
};

/** Page modules serve routes only: nothing below them reaches up to them. */
const PAGES = {
  group: ["~/server/pages/*", "../pages/*", "../../pages/*", "**/server/pages/*"],
  message: "Page modules (app/server/pages/) are for route modules only: what a service or query needs from one belongs in that service or query.",
};

/**
 * A route module holds its address's contract and its component tree: its loader and action call
 * its page module (which assembles the data), a service, the capped body readers, or the API's
 * doors. Types may come from anywhere on the server.
 */
const ROUTE_SERVER_IMPORTS = {
  // (Files by their `.server` ending: a folder matched by the first line could not be let back in.)
  group: [
    "~/server/**/*.server",
    "!~/server/pages/*.server",
    "!~/server/services/*.server",
    "!~/server/api/*.server",
    "!~/server/http/body.server",
    "!~/server/http/multipart.server",
    "!~/server/http/api.server",
  ],
  allowTypeImports: true,
  message: "A route imports from app/server only its page module (app/server/pages/), services, the API's doors and the capped body readers: move the rest into the page module (docs/developer-guide.md).",
};
/** Page modules never import a route or a component, not even a type: they are below both. */
const ROUTES_AND_COMPONENTS = {
  group: ["~/routes/*", "**/routes/*", "~/components/*", "~/components/**", "**/components/*"],
  message: "Page modules (app/server/pages/) never import routes or components: a route imports its page module, not the other way round.",
};

/** The rooms the services stand on never reach up to them or to the API's doors. */
const ABOVE_LOWER_ROOMS = {
  group: ["~/server/services/*", "../services/*", "../../services/*", "~/server/api/*", "../api/*", "../../api/*"],
  message: "db, http, document, auth, media, cache, validation and import are below the services: they never import services or the API doors (pass what they need in).",
};

/** The production server (app/server/runtime/) reaches the rest of the app through its facade only. */
const AROUND_FACADE = {
  group: ["~/*", "~/**", "../*", "../**", "!../facade.server", "!../env.server"],
  message: "The server runtime imports only app/server/facade.server.ts and env.server.ts of the app: what it needs is exported there.",
};
/** The app never reaches into the server that runs it. */
const RUNTIME = {
  group: ["**/runtime/*", "~/server/runtime/*"],
  message: "App modules must not import the server runtime (app/server/runtime/): it imports them, through the facade.",
};

const restrict = (...patterns) => ["error", { patterns }];

export default tseslint.config(
  { ignores: ["build/", "build-*/", "public/build/", "node_modules/", ".e2e-data/", "test-results/", "data/", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // We match control characters on purpose: to refuse them (redirect targets) or strip them
      // (imported text, XML output).
      "no-control-regex": "off",
      // `_`-prefixed arguments are deliberately unused (Remix passes args we may not need).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "no-restricted-imports": "off",
      "@typescript-eslint/no-restricted-imports": restrict(OUTSIDE_APP),
    },
  },
  {
    // Browser code: components, shared modules, the browser entry.
    files: ["app/components/**/*.{ts,tsx}", "app/lib/**/*.{ts,tsx}", "app/entry.client.tsx"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(SERVER_MODULES, OUTSIDE_APP, ROUTES) },
  },
  {
    // Server modules: no components, no routes, no page modules.
    files: ["app/server/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(COMPONENTS, ROUTES, OUTSIDE_APP, RUNTIME, PAGES) },
  },
  {
    // Page modules: services, queries and the rooms below; never a route or a component.
    files: ["app/server/pages/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(ROUTES_AND_COMPONENTS, OUTSIDE_APP, RUNTIME) },
  },
  {
    // The server runtime: Node, npm packages, its own files, and the app's facade.
    files: ["app/server/runtime/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(AROUND_FACADE, OUTSIDE_APP) },
  },
  {
    // The rooms below the services.
    files: ["app/server/{db,http,document,auth,media,cache,validation,import}/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(ABOVE_LOWER_ROOMS, COMPONENTS, ROUTES, OUTSIDE_APP, RUNTIME, PAGES) },
  },
  {
    // Queries: the bottom layer (no services, components or routes).
    files: ["app/server/queries/**/*.ts"],
    rules: { "@typescript-eslint/no-restricted-imports": restrict(SERVICES, COMPONENTS, ROUTES, OUTSIDE_APP, RUNTIME, PAGES) },
  },
  {
    // Route modules: their page module, services, the API's doors and the capped body readers of
    // app/server; forms read through the capped reader, never the raw body.
    files: ["app/routes/**/*.{ts,tsx}"],
    rules: {
      "@typescript-eslint/no-restricted-imports": restrict(ROUTE_SERVER_IMPORTS, OUTSIDE_APP, RUNTIME),
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^(formData|json|text|arrayBuffer|blob)$/][callee.object.name='request']",
          message: "Read request bodies through readForm / readMultipartFormLenient / readJsonObject: they cap the size and are read once.",
        },
      ],
    },
  },
  {
    // Tests poke at untyped answers; migrations are typed `Kysely<any>` on purpose (they must not
    // depend on today's schema types).
    files: ["tests/**/*.{ts,tsx}", "seed/**/*.ts", "scripts/**/*.js", "bench/**/*.js", "migrations/**/*.ts", "*.config.{js,ts}"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
