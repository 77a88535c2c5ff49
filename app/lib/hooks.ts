import { useEffect, useState } from "react";

let hydrated = false;

/**
 * False during the server render and the first client render, true afterwards. Forms use it
 * to tell the server "answer me with data" (fetcher) instead of "redirect me back" (no JS).
 */
export function useHydrated(): boolean {
  const [isHydrated, setHydrated] = useState(hydrated);
  useEffect(() => {
    hydrated = true;
    setHydrated(true);
  }, []);
  return isHydrated;
}
