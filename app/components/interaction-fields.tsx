import { useHydrated } from "~/lib/hooks";

/** Hidden fields for a form that works as a fetcher and as a plain post (see interaction.server.ts). */
export function InteractionFields({ redirectTo }: { redirectTo: string }) {
  const hydrated = useHydrated();
  return (
    <>
      <input type="hidden" name="redirectTo" value={redirectTo} />
      {hydrated ? <input type="hidden" name="_fetcher" value="1" /> : null}
    </>
  );
}
