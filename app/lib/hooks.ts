import { useEffect, useRef, useState } from "react";

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

/**
 * A number that changes with every new action result: used as the `key` of password inputs so
 * a refused submission empties them (the server never sends passwords back either).
 */
export function useResultKey(result: unknown): number {
  const ref = useRef({ result, key: 0 });
  if (ref.current.result !== result) ref.current = { result, key: ref.current.key + 1 };
  return ref.current.key;
}
