import { useId, useRef, useState } from "react";

import { FIELD, IMPORT_INTENT } from "~/lib/recipe-form";

/**
 * `Import from link` and its `Import` button (docs/rules.md#import-by-link): a submit button with its own intent,
 * so the import works without JavaScript; the server answers with the filled-in draft.
 */
export function ImportFromLink({
  initialLink,
  error,
  notes,
  importing,
  autoFocus,
}: {
  initialLink: string;
  error: string | undefined;
  notes: string[];
  importing: boolean;
  autoFocus: boolean;
}) {
  const id = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const [link, setLink] = useState(initialLink);
  const [seenLink, setSeenLink] = useState(initialLink);
  if (seenLink !== initialLink) {
    setSeenLink(initialLink);
    setLink(initialLink);
  }
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  return (
    <div className="field editor-import">
      <label htmlFor={id}>Import from link</label>
      <div className="editor-import__row">
        <input
          id={id}
          type="url"
          inputMode="url"
          name={FIELD.importLink}
          value={link}
          placeholder="https://…"
          autoComplete="off"
          maxLength={2048}
          data-row={FIELD.importLink}
          onChange={(event) => setLink(event.currentTarget.value)}
          // Enter here means Import, not the form's first button (Save).
          onKeyDown={(event) => {
            if (event.key !== "Enter") return;
            event.preventDefault();
            buttonRef.current?.click();
          }}
          autoFocus={autoFocus}
          aria-invalid={error ? true : undefined}
          aria-describedby={[error ? errorId : null, hintId].filter(Boolean).join(" ")}
        />
        <button
          ref={buttonRef}
          type="submit"
          name={FIELD.intent}
          value={IMPORT_INTENT}
          className="button button--ghost"
          disabled={importing}
          formNoValidate
        >
          Import
        </button>
      </div>
      <p className="field__hint" id={hintId}>
        {importing ? "Importing…" : "A recipe page fills in the form below (a page without recipe data gives a guess to check). Nothing is saved until you press Save."}
      </p>
      {error ? (
        <p className="field__error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
      {notes.length > 0 ? (
        <ul className="notice editor-import__notes" role="status">
          {notes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

