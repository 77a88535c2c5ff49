import { useLocation } from "@remix-run/react";

/** The current page (path and query), where a plain form post comes back to. */
export function useReturnTo(): string {
  const location = useLocation();
  return `${location.pathname}${location.search}`;
}

/**
 * The page a plain post (no JavaScript, or a press before the page's script runs) comes back to,
 * at `anchor` (the id of the control that was used) when given, so the reader keeps their place
 * (docs/rules.md#without-javascript). A post sent by the script says so itself
 * (FetcherForm adds `_fetcher`, see interaction.server.ts).
 */
export function InteractionFields({ redirectTo, anchor }: { redirectTo: string; anchor?: string }) {
  const back = anchor ? `${redirectTo.split("#")[0]}#${anchor}` : redirectTo;
  return <input type="hidden" name="redirectTo" value={back} />;
}
