import { useEffect, useId, useRef, type ReactNode } from "react";
import { Link } from "./link";

/**
 * A dialog that is a route of its own (docs/rules.md#dialogs): rendered over its page, named by its
 * title, closed by a link back (the backdrop is that link too). Works without JavaScript;
 * with it, focus moves into the dialog and Escape closes it.
 */
export function RouteDialog({
  title,
  closeTo,
  wide = false,
  children,
}: {
  title: string;
  closeTo: string;
  /** Room for a photo beside its text on wide screens (the post viewer). */
  wide?: boolean;
  children: ReactNode;
}) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      // Dialogs can stack (likes over the post viewer): the innermost one, registered first, wins.
      if (event.key !== "Escape" || event.defaultPrevented) return;
      event.preventDefault();
      panel.current?.querySelector<HTMLAnchorElement>(".route-dialog__close")?.click();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  return (
    <div className="route-dialog">
      <Link to={closeTo} className="route-dialog__backdrop" aria-hidden="true" tabIndex={-1} preventScrollReset />
      <div className={wide ? "route-dialog__panel route-dialog__panel--wide" : "route-dialog__panel"} role="dialog" aria-modal="true" aria-labelledby={titleId} ref={panel} tabIndex={-1}>
        <header className="route-dialog__header">
          <h2 id={titleId}>{title}</h2>
          <Link to={closeTo} className="route-dialog__close" preventScrollReset>
            <span aria-hidden="true">×</span>
            <span className="visually-hidden">Close</span>
          </Link>
        </header>
        <div className="route-dialog__body">{children}</div>
      </div>
    </div>
  );
}
