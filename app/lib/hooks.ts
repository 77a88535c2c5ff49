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

/**
 * Runs `act` after a commit in which `value` differs from the value it last acted on (not at the
 * first commit). An effect without dependencies, checked against a ref: React 18 may never run an
 * effect whose dependencies changed when a render of the component bailed out after reading the
 * new value (facebook/react#23090). A fetcher's answer arriving while the page still hydrated was
 * lost that way on slow phones: the page rendered it and never appended it
 * (docs/rules.md#hurried-clicks). Use it for state that follows data, instead of `[deps]`.
 */
export function useChangeEffect<T>(value: T, act: (value: T) => void): void {
  const seen = useRef(value);
  useEffect(() => {
    if (Object.is(seen.current, value)) return;
    seen.current = value;
    act(value);
  });
}

/** True once `active` has stayed true for `delayMs` (restarting whenever `restartKey` changes). */
export function useDelayedFlag(active: boolean, delayMs: number, restartKey?: string): boolean {
  const [flag, setFlag] = useState(false);
  useEffect(() => {
    setFlag(false);
    if (!active) return;
    const timer = setTimeout(() => setFlag(true), delayMs);
    return () => clearTimeout(timer);
  }, [active, delayMs, restartKey]);
  return active && flag;
}
