/**
 * The page a plain post (no JavaScript, or a press before the page's script runs) comes back to.
 * A post sent by the script says so itself (FetcherForm adds `_fetcher`, see interaction.server.ts).
 */
export function InteractionFields({ redirectTo }: { redirectTo: string }) {
  return <input type="hidden" name="redirectTo" value={redirectTo} />;
}
