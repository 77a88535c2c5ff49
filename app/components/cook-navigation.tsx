// Moving between cook mode's steps: plain links that work without JavaScript; with it, client
// navigations (whole-page loads offline), the Left/Right arrow keys and sideways swipes.
import { useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useRef, type MouseEvent, type ReactNode, type TouchEvent } from "react";

import type { StepDuration } from "~/lib/cook-mode";

/**
 * Goes to another step. Offline (a saved recipe's pages kept by the service worker), a whole-page
 * load: a client navigation would ask the server for data, which the worker does not keep.
 */
export function useGo(): (to: string) => void {
  const navigate = useNavigate();
  return useCallback(
    (to: string) => {
      if (navigator.onLine === false) window.location.assign(to);
      else navigate(to);
    },
    [navigate],
  );
}

/** A plain link (no JavaScript needed); with JavaScript, followed by `go` when a plain click. */
export function CookLink({ to, go, className, rel, children }: { to: string; go: (to: string) => void; className?: string; rel?: string; children: ReactNode }) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
    // Offline the browser loads the page itself, and the service worker answers it.
    if (navigator.onLine === false) return;
    event.preventDefault();
    go(to);
  };
  return (
    <a href={to} className={className} rel={rel} onClick={onClick}>
      {children}
    </a>
  );
}

/** Left/Right arrow keys move between steps, unless someone is typing or a key is held with them. */
export function useArrowKeys(previous: string | null, next: string | null, go: (to: string) => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || /^(?:TEXTAREA|SELECT)$/.test(target.tagName))) return;
      if (target instanceof HTMLInputElement && target.type !== "checkbox") return;
      const to = event.key === "ArrowRight" ? next : event.key === "ArrowLeft" ? previous : null;
      if (!to) return;
      event.preventDefault();
      go(to);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [previous, next, go]);
}

/** A horizontal swipe: to the left for the next step, to the right for the previous one. */
export function useSwipe(previous: string | null, next: string | null, go: (to: string) => void) {
  const from = useRef<{ x: number; y: number } | null>(null);
  return {
    onTouchStart: (event: TouchEvent) => {
      const touch = event.touches[0];
      from.current = event.touches.length === 1 && touch ? { x: touch.clientX, y: touch.clientY } : null;
    },
    onTouchEnd: (event: TouchEvent) => {
      const start = from.current;
      const touch = event.changedTouches[0];
      from.current = null;
      if (!start || !touch) return;
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      // Clearly sideways and long enough: not a scroll, not a tap.
      if (Math.abs(dx) < 60 || Math.abs(dx) < 2 * Math.abs(dy)) return;
      const to = dx < 0 ? next : previous;
      if (to) go(to);
    },
  };
}

/** The step's text, its durations marked (they are the timers offered below it). */
export function StepText({ text, durations }: { text: string; durations: StepDuration[] }) {
  const parts: ReactNode[] = [];
  let at = 0;
  durations.forEach((duration, index) => {
    if (duration.start > at) parts.push(text.slice(at, duration.start));
    parts.push(
      <strong key={index} className="cook__duration">
        {text.slice(duration.start, duration.end)}
      </strong>,
    );
    at = duration.end;
  });
  if (at < text.length) parts.push(text.slice(at));
  return <p className="cook__text">{parts}</p>;
}
