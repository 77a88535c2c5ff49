import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";

import { registerServiceWorker } from "./lib/service-worker";

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RemixBrowser />
    </StrictMode>,
  );
});

// Offline reading of saved recipes (public/sw.js); the page never waits for it.
registerServiceWorker();
