// Share: with JavaScript the system share sheet where the browser has one; elsewhere, and without
// JavaScript, a panel that opens on the page's address, ready to copy (docs/rules.md#recipe-screen).
import { useState, type MouseEvent } from "react";

import { useHydrated } from "~/lib/hooks";

export function ShareControl({ url, title }: { url: string; title: string }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState(false);
  const openSheet = (event: MouseEvent) => {
    if (typeof navigator.share !== "function") return;
    event.preventDefault();
    // Closing the sheet without sharing rejects: nothing to tell.
    navigator.share({ title, url }).catch(() => undefined);
  };
  const copy = () => {
    void navigator.clipboard?.writeText(url).then(() => setCopied(true), () => undefined);
  };
  return (
    <details className="share">
      <summary className="button button--ghost" onClick={openSheet}>
        Share
      </summary>
      <div className="share__panel">
        <label htmlFor="share-url">Link to this recipe</label>
        <input id="share-url" type="url" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
        {hydrated ? (
          <button type="button" className="button button--small" onClick={copy}>
            Copy link
          </button>
        ) : null}
        <span role="status" className="share__status">
          {copied ? "Link copied." : ""}
        </span>
      </div>
    </details>
  );
}
