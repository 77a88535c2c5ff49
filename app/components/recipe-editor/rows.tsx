import { useId, type ReactNode } from "react";

import { TextArea, TextField } from "~/components/forms";
import { ERROR_KEY, FIELD, RECIPE_LIMITS, rowIntent, type RecipeDraft } from "~/lib/recipe-form";


// The rows of the recipe form: ingredient sections with their lines, and the steps. Each row
// button is a real submit button (see RecipeEditor), made by `rowButton`.

export interface RowTools {
  errors: Record<string, string>;
  rowButton: (value: string, label: ReactNode, className?: string) => ReactNode;
  /** `autoFocus` for the row the server asks to focus (no JavaScript), else nothing. */
  autoFocus: (row: string) => { autoFocus?: boolean };
}

export function IngredientSections({
  draft,
  rows,
  updateSection,
}: {
  draft: RecipeDraft;
  rows: RowTools;
  updateSection: (index: number, patch: { title?: string; ingredients?: string[] }) => void;
}) {
  const ingredientsError = rows.errors[ERROR_KEY.ingredients];
  const ingredientsErrorId = useId();
  return (
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
          error={rows.errors[ERROR_KEY.sectionTitle(sectionIndex)]}
          {...rows.autoFocus(ERROR_KEY.sectionTitle(sectionIndex))}
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
                  error={rows.errors[key]}
                  invalid={firstInvalid}
                  describedBy={firstInvalid ? ingredientsErrorId : undefined}
                  {...rows.autoFocus(key)}
                />
                {section.ingredients.length > 1
                  ? rows.rowButton(
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
          {rows.rowButton(rowIntent.addIngredient(sectionIndex), "Add Ingredient", "button--ghost")}
          {draft.sections.length > 1
            ? rows.rowButton(rowIntent.deleteSection(sectionIndex), "Delete Section", "button--ghost button--danger")
            : null}
        </div>
      </fieldset>
    ))}
    {ingredientsError ? (
      <p className="field__error" id={ingredientsErrorId} role="alert">
        {ingredientsError}
      </p>
    ) : null}
    <div className="editor-row-actions">{rows.rowButton(rowIntent.addSection(), "Add Section", "button--ghost")}</div>
  </fieldset>
  );
}

export function StepList({ draft, rows, setStep }: { draft: RecipeDraft; rows: RowTools; setStep: (index: number, value: string) => void }) {
  const stepsError = rows.errors[ERROR_KEY.steps];
  const stepsErrorId = useId();
  return (
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
              onChange={(event) => setStep(stepIndex, event.currentTarget.value)}
              maxLength={RECIPE_LIMITS.step}
              data-row={key}
              error={rows.errors[key]}
              invalid={firstInvalid}
              describedBy={firstInvalid ? stepsErrorId : undefined}
              {...rows.autoFocus(key)}
            />
            {draft.steps.length > 1
              ? rows.rowButton(
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
    <div className="editor-row-actions">{rows.rowButton(rowIntent.addStep(), "Add Step", "button--ghost")}</div>
  </fieldset>
  );
}
