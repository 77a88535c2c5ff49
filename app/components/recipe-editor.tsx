import { Form, Link, useNavigation, useSubmit } from "@remix-run/react";
import clsx from "clsx";
import { useEffect, useId, useRef, useState, type ReactNode, type TextareaHTMLAttributes } from "react";

import { FormAlert, TextField, useFocusInvalid } from "~/components/forms";
import {
  applyRowIntent,
  ERROR_KEY,
  FIELD,
  firstInvalidField,
  firstThreeTags,
  IMPORT_INTENT,
  parseRowIntent,
  RECIPE_LIMITS,
  RECIPE_MESSAGES,
  rowIntent,
  splitTags,
  type EditorResult,
  type RecipeDraft,
} from "~/lib/recipe-form";

import { RecipePhotoField } from "./recipe-editor-photo";

export interface RecipeEditorProps {
  mode: "create" | "edit";
  initialDraft: RecipeDraft;
  result: EditorResult | undefined;
  currentPhoto: string | null;
  cancelTo: string;
}

/**
 * The recipe form. Every row button is a real submit button (`name="intent"`): without
 * JavaScript the server answers with the re-rendered draft; with JavaScript the click is
 * handled here and the rows change at once.
 */
export function RecipeEditor({ mode, initialDraft, result, currentPhoto, cancelTo }: RecipeEditorProps) {
  const formRef = useRef<HTMLFormElement>(null);
  const submit = useSubmit();
  const navigation = useNavigation();
  const [draft, setDraft] = useState<RecipeDraft>(result?.draft ?? initialDraft);
  const [rowMessage, setRowMessage] = useState<string | null>(result?.kind === "draft" ? result.formError : null);
  const [focusRow, setFocusRow] = useState<string | null>(null);
  const [photoBusy, setPhotoBusy] = useState(false);
  const [tagsNotice, setTagsNotice] = useState<string | null>(null);
  // After a row moves, messages tied to row numbers no longer point at the right row.
  const [rowsMoved, setRowsMoved] = useState(false);

  // A new answer from the server (a refused save) replaces the draft with what it echoes.
  const [seen, setSeen] = useState(result);
  if (seen !== result) {
    setSeen(result);
    if (result) setDraft(result.draft);
    setRowMessage(result?.kind === "draft" ? result.formError : null);
    setRowsMoved(false);
    // After an import (the only draft answer that reaches a page with JavaScript): the name to
    // review, or the link field with its message.
    if (result?.kind === "draft" && result.focus) setFocusRow(result.focus);
  }
  useFocusInvalid(formRef, result?.kind === "invalid" ? result : null);

  useEffect(() => {
    if (!focusRow) return;
    formRef.current?.querySelector<HTMLElement>(`[data-row="${focusRow}"]`)?.focus();
    setFocusRow(null);
  }, [focusRow]);

  const answered = result?.kind === "invalid" || result?.kind === "draft" ? result.fieldErrors : {};
  const errors = rowsMoved
    ? Object.fromEntries(Object.entries(answered).filter(([key]) => !/^(ingredient|sectionTitle|step)-/.test(key)))
    : answered;
  const formError = result?.kind === "invalid" ? result.formError : null;
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

  // SPEC §5: input beyond three tags is cut to the first three; done when leaving the field,
  // so typing is never fought, and said out loud.
  function cutTags() {
    if (splitTags(draft.tags).length <= RECIPE_LIMITS.tags) return;
    update({ tags: firstThreeTags(draft.tags) });
    setTagsNotice(RECIPE_MESSAGES.tagsCut);
  }

  const ingredientsError = errors[ERROR_KEY.ingredients];
  const stepsError = errors[ERROR_KEY.steps];
  const ingredientsErrorId = useId();
  const stepsErrorId = useId();

  return (
    <Form method="post" encType="multipart/form-data" noValidate ref={formRef} className="editor stack" aria-busy={saving || undefined}>
      {/* Enter in a text field submits with the first submit button: make that one Save, not a row button. */}
      <button type="submit" name={FIELD.intent} value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true">
        Save
      </button>
      <input type="hidden" name={FIELD.mode} value={mode} />
      <FormAlert message={formError} />
      {rowMessage ? (
        <p className="notice" role="status">
          {rowMessage}
        </p>
      ) : null}

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

      <fieldset className="editor-group" aria-describedby={ingredientsError ? ingredientsErrorId : undefined}>
        <legend className="editor-group__title">Ingredients</legend>
        {draft.sections.map((section, sectionIndex) => (
          <fieldset className="editor-section" key={sectionIndex}>
            <legend className="visually-hidden">Section {sectionIndex + 1}</legend>
            <input type="hidden" name={FIELD.sectionId} value={section.id} />
            <TextField
              label="Section Title"
              name={FIELD.sectionTitle}
              value={section.title}
              placeholder="e.g. Sauce"
              onChange={(event) => updateSection(sectionIndex, { title: event.currentTarget.value })}
              maxLength={RECIPE_LIMITS.sectionTitle}
              data-row={ERROR_KEY.sectionTitle(sectionIndex)}
              error={errors[ERROR_KEY.sectionTitle(sectionIndex)]}
              {...autoFocus(ERROR_KEY.sectionTitle(sectionIndex))}
            />
            <ol className="editor-lines">
              {section.ingredients.map((line, lineIndex) => {
                const key = ERROR_KEY.ingredient(sectionIndex, lineIndex);
                const firstInvalid = Boolean(ingredientsError) && sectionIndex === 0 && lineIndex === 0;
                return (
                  <li key={lineIndex} className="editor-row">
                    <TextField
                      label="Ingredient"
                      className="editor-row__field"
                      name={FIELD.ingredient(sectionIndex)}
                      value={line}
                      placeholder="e.g. Soy sauce (2 tbsp)"
                      onChange={(event) => {
                        const value = event.currentTarget.value;
                        updateSection(sectionIndex, {
                          ingredients: section.ingredients.map((item, i) => (i === lineIndex ? value : item)),
                        });
                      }}
                      maxLength={RECIPE_LIMITS.line}
                      data-row={key}
                      error={errors[key]}
                      invalid={firstInvalid}
                      {...(firstInvalid ? { "aria-describedby": ingredientsErrorId } : {})}
                      {...autoFocus(key)}
                    />
                    {section.ingredients.length > 1
                      ? rowButton(
                          rowIntent.deleteIngredient(sectionIndex, lineIndex),
                          <>
                            <span aria-hidden="true">×</span>
                            <span className="visually-hidden">Delete Ingredient</span>
                          </>,
                          "button--ghost editor-row__delete",
                        )
                      : null}
                  </li>
                );
              })}
            </ol>
            <div className="editor-row-actions">
              {rowButton(rowIntent.addIngredient(sectionIndex), "Add Ingredient", "button--ghost")}
              {draft.sections.length > 1
                ? rowButton(rowIntent.deleteSection(sectionIndex), "Delete Section", "button--ghost button--danger")
                : null}
            </div>
          </fieldset>
        ))}
        {ingredientsError ? (
          <p className="field__error" id={ingredientsErrorId} role="alert">
            {ingredientsError}
          </p>
        ) : null}
        <div className="editor-row-actions">{rowButton(rowIntent.addSection(), "Add Section", "button--ghost")}</div>
      </fieldset>

      <fieldset className="editor-group">
        <legend className="editor-group__title">Instructions</legend>
        <ol className="editor-steps">
          {draft.steps.map((step, stepIndex) => {
            const key = ERROR_KEY.step(stepIndex);
            const firstInvalid = Boolean(stepsError) && stepIndex === 0;
            return (
              <li key={stepIndex} className="editor-row">
                <TextArea
                  label={`Step ${stepIndex + 1}`}
                  className="editor-row__field"
                  name={FIELD.step}
                  value={step}
                  rows={2}
                  onChange={(event) => {
                    const value = event.currentTarget.value;
                    setDraft((current) => ({ ...current, steps: current.steps.map((s, i) => (i === stepIndex ? value : s)) }));
                  }}
                  maxLength={RECIPE_LIMITS.step}
                  data-row={key}
                  error={errors[key]}
                  invalid={firstInvalid}
                  describedBy={firstInvalid ? stepsErrorId : undefined}
                  {...autoFocus(key)}
                />
                {draft.steps.length > 1
                  ? rowButton(
                      rowIntent.deleteStep(stepIndex),
                      <>
                        <span aria-hidden="true">×</span>
                        <span className="visually-hidden">Delete Step</span>
                      </>,
                      "button--ghost editor-row__delete",
                    )
                  : null}
              </li>
            );
          })}
        </ol>
        {stepsError ? (
          <p className="field__error" id={stepsErrorId} role="alert">
            {stepsError}
          </p>
        ) : null}
        <div className="editor-row-actions">{rowButton(rowIntent.addStep(), "Add Step", "button--ghost")}</div>
      </fieldset>

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
        hint="Separate tags with commas; up to 3."
        error={errors[FIELD.tags]}
        {...autoFocus(FIELD.tags)}
      />
      {tagsNotice ? (
        <p className="notice" role="status">
          {tagsNotice}
        </p>
      ) : null}

      <RecipePhotoField
        currentPhoto={currentPhoto}
        pendingPhoto={result?.pendingPhoto ?? null}
        error={errors[FIELD.photo]}
        photoNotKept={result?.photoNotKept ?? false}
        onBusyChange={setPhotoBusy}
        autoFocus={invalidFocus === FIELD.photo}
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
        <button type="submit" name={FIELD.intent} value="save" className="button" disabled={saving || photoBusy}>
          Save
        </button>
      </div>
      {saving ? (
        <p className="field__hint editor-actions__status" role="status">
          Saving…
        </p>
      ) : null}
    </Form>
  );
}

/**
 * `Import from link` and its `Import` button (DESIGN §8): a submit button with its own intent,
 * so the import works without JavaScript; the server answers with the filled-in draft.
 */
function ImportFromLink({
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
        {importing ? "Importing…" : "A recipe page with schema.org Recipe data fills in the form below. Nothing is saved until you press Save."}
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

function Counter({ value, max }: { value: string; max: number }) {
  return <span className={clsx("editor-counter", value.length > max && "is-over")}>{`${value.length}/${max}`}</span>;
}

interface TextAreaProps extends Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id"> {
  label: string;
  name: string;
  error?: string | null;
  invalid?: boolean;
  hint?: ReactNode;
  describedBy?: string;
  "data-row"?: string;
}

/** A labelled textarea with the same error wiring as TextField. */
function TextArea({ label, name, error, invalid, hint, describedBy, className, ...rest }: TextAreaProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const isInvalid = Boolean(error) || Boolean(invalid);
  const ids = [error ? errorId : null, hint ? hintId : null, describedBy ?? null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={clsx("field", className)}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} name={name} aria-invalid={isInvalid || undefined} aria-describedby={ids} {...rest} />
      {hint ? (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field__error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The no-JavaScript confirmation step of Delete Recipe (DESIGN §4): the same question the
 * browser's confirm dialog asks, and a Delete button that submits again with the confirmation.
 */
export function DeleteRecipeConfirmation({ backTo }: { backTo: string }) {
  const headingId = useId();
  return (
    <section className="editor-confirm" aria-labelledby={headingId}>
      <h2 id={headingId} className="editor-confirm__title">
        Delete Recipe
      </h2>
      <p role="alert">{RECIPE_MESSAGES.deleteConfirm}</p>
      <Form method="post" className="actions editor-confirm__actions">
        <input type="hidden" name={FIELD.mode} value="edit" />
        <input type="hidden" name={FIELD.confirm} value="yes" />
        <Link to={backTo} className="button button--ghost">
          Cancel
        </Link>
        <button type="submit" name={FIELD.intent} value="delete" className="button button--danger">
          Delete
        </button>
      </Form>
    </section>
  );
}
