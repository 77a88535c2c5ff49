import { Form, useNavigation, useSubmit } from "@remix-run/react";
import clsx from "clsx";
import { useEffect, useRef, useState, type ReactNode } from "react";

import { FormAlert, TextArea, TextField, useFocusInvalid } from "~/components/forms";
import {
  applyRowIntent,
  FIELD,
  firstInvalidField,
  firstThreeTags,
  IMPORT_INTENT,
  parseRowIntent,
  quickDraftErrors,
  RECIPE_LIMITS,
  RECIPE_MESSAGES,
  splitTags,
  type EditorResult,
  type RecipeDraft,
} from "~/lib/recipe-form";

import { Counter } from "./fields";
import { ImportFromLink } from "./import-from-link";
import { RecipePhotoField } from "./editor-photo";
import { IngredientSections, StepList, type RowTools } from "./rows";
import { Link } from "../link";

export { DeleteRecipeConfirmation } from "./delete-confirmation";

export interface RecipeEditorProps {
  mode: "create" | "edit";
  initialDraft: RecipeDraft;
  result: EditorResult | undefined;
  /** A save the server refused before the page's action ran: a message over the draft, which stays. */
  refusal: string | null;
  currentPhoto: string | null;
  cancelTo: string;
}

/**
 * The recipe form. Every row button is a real submit button (`name="intent"`): without
 * JavaScript the server answers with the re-rendered draft; with JavaScript the click is
 * handled here and the rows change at once.
 */
export function RecipeEditor({ mode, initialDraft, result, refusal, currentPhoto, cancelTo }: RecipeEditorProps) {
  const formRef = useRef<HTMLFormElement>(null);
  const submit = useSubmit();
  const navigation = useNavigation();
  const [draft, setDraft] = useState<RecipeDraft>(result?.draft ?? initialDraft);
  const [rowMessage, setRowMessage] = useState<string | null>(result?.kind === "draft" ? result.formError : null);
  const [focusRow, setFocusRow] = useState<string | null>(null);
  const [photoBusy, setPhotoBusy] = useState(false);
  // A Save pressed while the chosen photo is still being made smaller: sent once it is ready
  // (a disabled Save would swallow that click).
  const [saveWaits, setSaveWaits] = useState(false);
  const waitingSubmitter = useRef<HTMLElement | null>(null);
  const [tagsNotice, setTagsNotice] = useState<string | null>(null);
  // After a row moves, messages tied to row numbers no longer point at the right row.
  const [rowsMoved, setRowsMoved] = useState(false);
  // A Save the browser held back: what it found missing, shown at once (a new object each time,
  // so the first field with a message is focused again).
  const [quickCheck, setQuickCheck] = useState<{ fieldErrors: Record<string, string> } | null>(null);

  // A new answer from the server (a refused save) replaces the draft with what it echoes.
  const [seen, setSeen] = useState(result);
  if (seen !== result) {
    setSeen(result);
    if (result) setDraft(result.draft);
    setRowMessage(result?.kind === "draft" ? result.formError : null);
    setRowsMoved(false);
    setQuickCheck(null);
    // After an import (the only draft answer that reaches a page with JavaScript): the name to
    // review, or the link field with its message.
    if (result?.kind === "draft" && result.focus) setFocusRow(result.focus);
  }
  useFocusInvalid(formRef, quickCheck ?? (result?.kind === "invalid" ? result : null));

  useEffect(() => {
    if (!focusRow) return;
    formRef.current?.querySelector<HTMLElement>(`[data-row="${focusRow}"]`)?.focus();
    setFocusRow(null);
  }, [focusRow]);

  const answered = quickCheck ? quickCheck.fieldErrors : result?.kind === "invalid" || result?.kind === "draft" ? result.fieldErrors : {};
  const errors = rowsMoved
    ? Object.fromEntries(Object.entries(answered).filter(([key]) => !/^(ingredient|sectionTitle|step)-/.test(key)))
    : answered;
  const formError = !quickCheck && result?.kind === "invalid" ? result.formError : null;
  const serverFocus = result?.kind === "draft" ? result.focus : null;
  const submittingIntent = navigation.state === "submitting" ? navigation.formData?.get(FIELD.intent) : null;
  const saving = submittingIntent === "save" || submittingIntent === "";
  const importing = submittingIntent === IMPORT_INTENT;

  function handleRowButton(event: React.MouseEvent<HTMLButtonElement>) {
    const intent = parseRowIntent(event.currentTarget.value);
    if (!intent) return;
    event.preventDefault();
    const change = applyRowIntent(draft, intent);
    setDraft(change.draft);
    setRowMessage(change.error);
    setFocusRow(change.focus);
    if (change.draft !== draft) setRowsMoved(true);
  }

  function handleSubmit(event: React.FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    // A Save with something missing is not sent: its messages show at once, the server's own
    // check (the same words) stays for anything the browser cannot tell.
    if (submitter instanceof HTMLButtonElement && submitter.value === "save") {
      const found = quickDraftErrors(draft);
      if (Object.keys(found).length > 0) {
        event.preventDefault();
        setRowsMoved(false);
        setQuickCheck({ fieldErrors: found });
        return;
      }
    }
    setQuickCheck(null);
    if (!photoBusy) return;
    event.preventDefault();
    waitingSubmitter.current = submitter;
    setSaveWaits(true);
  }

  useEffect(() => {
    if (photoBusy || !saveWaits) return;
    setSaveWaits(false);
    formRef.current?.requestSubmit(waitingSubmitter.current ?? undefined);
  }, [photoBusy, saveWaits]);

  function handleDelete(event: React.MouseEvent<HTMLButtonElement>) {
    event.preventDefault();
    if (!window.confirm(RECIPE_MESSAGES.deleteConfirm)) return;
    submit({ [FIELD.intent]: "delete", [FIELD.confirm]: "yes", [FIELD.mode]: mode }, { method: "post" });
  }

  const update = (patch: Partial<RecipeDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const updateSection = (index: number, patch: { title?: string; ingredients?: string[] }) =>
    setDraft((current) => ({
      ...current,
      sections: current.sections.map((section, i) => (i === index ? { ...section, ...patch } : section)),
    }));
  const rowButton = (value: string, label: ReactNode, className?: string) => (
    <button type="submit" name={FIELD.intent} value={value} className={clsx("button", className)} onClick={handleRowButton} formNoValidate>
      {label}
    </button>
  );
  // Without JavaScript, `autofocus` in the re-rendered page puts the cursor on the new row or the
  // first invalid field (with JavaScript, the effects above do it).
  const invalidFocus = result?.kind === "invalid" ? firstInvalidField(errors, draft) : null;
  const autoFocus = (row: string) => (serverFocus === row || invalidFocus === row ? { autoFocus: true } : {});

  // Tags beyond the third are cut (docs/rules.md#recipe-tags); done when leaving the field, so
  // typing is never fought, and said out loud.
  function cutTags() {
    if (splitTags(draft.tags).length <= RECIPE_LIMITS.tags) return;
    update({ tags: firstThreeTags(draft.tags) });
    setTagsNotice(RECIPE_MESSAGES.tagsCut);
  }

  const rows: RowTools = { errors, rowButton, autoFocus };

  return (
    <Form
      method="post"
      encType="multipart/form-data"
      noValidate
      ref={formRef}
      className="editor stack"
      aria-busy={saving || saveWaits || undefined}
      onSubmit={handleSubmit}
    >
      {/* Enter in a text field submits with the first submit button: make that one Save, not a row button. */}
      <button type="submit" name={FIELD.intent} value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true">
        Save
      </button>
      <input type="hidden" name={FIELD.mode} value={mode} />
      <FormAlert message={refusal ?? formError} />
      {rowMessage ? (
        <p className="notice" role="status">
          {rowMessage}
        </p>
      ) : null}

      {/* The photo first: what a post leads with, and what a cook has in hand when starting. */}
      <RecipePhotoField
        currentPhoto={currentPhoto}
        pendingPhoto={result?.pendingPhoto ?? null}
        error={errors[FIELD.photo]}
        photoNotKept={result?.photoNotKept ?? false}
        onBusyChange={setPhotoBusy}
        autoFocus={invalidFocus === FIELD.photo}
      />

      <ImportFromLink
        initialLink={result?.importLink ?? ""}
        error={errors[FIELD.importLink]}
        notes={result?.kind === "draft" ? (result.importNotes ?? []) : []}
        importing={importing}
        autoFocus={serverFocus === FIELD.importLink}
      />

      <TextField
        label="Recipe Name"
        name={FIELD.name}
        data-row={FIELD.name}
        value={draft.name}
        onChange={(event) => update({ name: event.currentTarget.value })}
        maxLength={RECIPE_LIMITS.name}
        autoComplete="off"
        {...autoFocus(FIELD.name)}
        hint={<Counter value={draft.name} max={RECIPE_LIMITS.name} />}
        error={errors[FIELD.name]}
      />
      <TextArea
        label="Description (Caption)"
        name={FIELD.description}
        value={draft.description}
        onChange={(event) => update({ description: event.currentTarget.value })}
        maxLength={RECIPE_LIMITS.description}
        rows={3}
        hint={<Counter value={draft.description} max={RECIPE_LIMITS.description} />}
        error={errors[FIELD.description]}
        {...autoFocus(FIELD.description)}
      />

      <IngredientSections draft={draft} rows={rows} updateSection={updateSection} />
      <StepList draft={draft} rows={rows} setStep={(index, value) => setDraft((current) => ({ ...current, steps: current.steps.map((s, i) => (i === index ? value : s)) }))} />

      <div className="editor-grid">
        <TextField
          label="Total Time"
          name={FIELD.totalTime}
          value={draft.totalTime}
          placeholder="e.g. 45min"
          onChange={(event) => update({ totalTime: event.currentTarget.value })}
          maxLength={RECIPE_LIMITS.totalTime}
          error={errors[FIELD.totalTime]}
          {...autoFocus(FIELD.totalTime)}
        />
        <TextField
          label="Serves"
          name={FIELD.serves}
          type="number"
          inputMode="numeric"
          min={1}
          max={RECIPE_LIMITS.serves}
          step={1}
          value={draft.serves}
          onChange={(event) => update({ serves: event.currentTarget.value })}
          error={errors[FIELD.serves]}
          {...autoFocus(FIELD.serves)}
        />
      </div>
      <TextField
        label="Tags"
        name={FIELD.tags}
        value={draft.tags}
        placeholder="e.g. Savory, Spicy, Noodles"
        onChange={(event) => {
          update({ tags: event.currentTarget.value });
          setTagsNotice(null);
        }}
        onBlur={cutTags}
        maxLength={RECIPE_LIMITS.tagsField}
        autoComplete="off"
        // The note takes the hint's place: it appears as the field is left, often on the way to
        // Save, and a note pushing Save down would make that click miss.
        hint={tagsNotice ? <span className="field__note">{tagsNotice}</span> : "Separate tags with commas; up to 3."}
        liveHint
        error={errors[FIELD.tags]}
        {...autoFocus(FIELD.tags)}
      />

      <div className="actions editor-actions">
        {mode === "edit" ? (
          <button
            type="submit"
            name={FIELD.intent}
            value="delete"
            className="button button--danger editor-actions__delete"
            onClick={handleDelete}
            formNoValidate
          >
            Delete Recipe
          </button>
        ) : null}
        <Link to={cancelTo} className="button button--ghost">
          Cancel
        </Link>
        <button type="submit" name={FIELD.intent} value="save" className="button" disabled={saving}>
          Save
        </button>
      </div>
      {saving || saveWaits ? (
        <p className="field__hint editor-actions__status" role="status">
          Saving…
        </p>
      ) : null}
    </Form>
  );
}

