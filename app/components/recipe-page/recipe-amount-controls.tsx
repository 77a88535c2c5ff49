// The recipe page's amount controls: −/+ servings (or a multiplier, for a recipe without stated
// servings) and Metric / US. Each works as a link or a form without JavaScript; with it, the lines
// rescale in the page, with the quantity reader loaded on the first change (useScaler).
import { Form, useActionData } from "@remix-run/react";
import { useCallback, useState } from "react";

import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { MAX_SERVES, SCALE_CHOICE_LABELS, SCALE_CHOICES, SCALE_MESSAGE } from "~/lib/servings";
import type { UnitSystem } from "~/lib/units";
import type { RecipePageActionData } from "~/server/pages/recipe-page.server";

type Rescaler = typeof import("~/lib/rescale");
let scalerLoading: Promise<Rescaler> | null = null;

/**
 * The quantity and number readers, loaded the first time someone changes the amounts (the page's
 * first lines come scaled from the server): they are most of a recipe page's own script, and most
 * visits never change the amounts.
 */
export function useScaler(): { tools: Rescaler | null; load: () => Promise<Rescaler> } {
  const [tools, setTools] = useState<Rescaler | null>(null);
  const load = useCallback(() => {
    scalerLoading ??= import("~/lib/rescale");
    return scalerLoading.then((loaded) => {
      setTools(loaded);
      return loaded;
    });
  }, []);
  return { tools, load };
}

/** −/+ links (?serves=N) that work without JavaScript; with it, they rescale at once. */
export function ServesControl({ recipeId, serves, onStep }: { recipeId: string; serves: number; onStep: (step: -1 | 1) => void }) {
  const link = (n: number, label: string, text: string) =>
    n < 1 || n > MAX_SERVES ? (
      <span className="serves-control__step is-disabled" aria-hidden="true">
        {text}
      </span>
    ) : (
      <Link
        to={`${paths.recipe(recipeId)}?serves=${n}`}
        className="serves-control__step"
        aria-label={label}
        preventScrollReset
        replace
        // Whenever this runs (hydration may not have finished: a click then is handled at once by
        // the script), the step is the script's; before the script, the link loads the page.
        onClick={(event) => {
          event.preventDefault();
          onStep(n > serves ? 1 : -1);
        }}
      >
        {text}
      </Link>
    );
  return (
    <div className="serves-control" role="group" aria-label="Servings">
      {link(serves - 1, "Fewer servings", "−")}
      <span aria-live="polite">
        {serves} {serves === 1 ? "serving" : "servings"}
      </span>
      {link(serves + 1, "More servings", "+")}
    </div>
  );
}

/**
 * ½× 1× 2× 3× links (?scale=N) and a box for any other multiplier (a GET form), for a recipe
 * without stated servings. Without JavaScript each is a page load; with it, the lines rescale at
 * once and the address follows. A multiplier it cannot read is said, and the recipe shown as written.
 */
export function ScaleControl({
  recipeId,
  scale,
  text,
  invalid,
  onChange,
}: {
  recipeId: string;
  scale: number;
  /** The multiplier as the address writes it ("1/3", "1.5"), or null. */
  text: string | null;
  invalid: boolean;
  onChange: (text: string | null) => void;
}) {
  const go = (text: string | null) => {
    onChange(text);
    window.history.replaceState(window.history.state, "", text === null ? paths.recipe(recipeId) : `${paths.recipe(recipeId)}?scale=${encodeURIComponent(text)}`);
  };
  const errorId = `scale-error-${recipeId}`;
  return (
    <div className="scale-control">
      <div className="serves-control" role="group" aria-label="Multiplier">
        {SCALE_CHOICES.map((choice) => (
          <Link
            key={choice}
            to={choice === 1 ? paths.recipe(recipeId) : `${paths.recipe(recipeId)}?scale=${choice}`}
            className="scale-control__choice"
            aria-current={choice === scale && !invalid ? "true" : undefined}
            preventScrollReset
            replace
            onClick={(event) => {
              event.preventDefault();
              go(choice === 1 ? null : String(choice));
            }}
          >
            {SCALE_CHOICE_LABELS[choice]}
          </Link>
        ))}
      </div>
      <form
        method="get"
        action={paths.recipe(recipeId)}
        className="scale-control__other"
        onSubmit={(event) => {
          event.preventDefault();
          const text = String(new FormData(event.currentTarget).get("scale") ?? "").trim();
          go(text === "" ? null : text);
        }}
      >
        <label htmlFor={`scale-${recipeId}`}>Other</label>
        <input
          id={`scale-${recipeId}`}
          name="scale"
          inputMode="decimal"
          size={4}
          maxLength={12}
          placeholder="1.5"
          key={text ?? ""}
          defaultValue={invalid || !SCALE_CHOICES.includes(scale as (typeof SCALE_CHOICES)[number]) ? (text ?? "") : ""}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorId : undefined}
        />
        <button type="submit" className="button button--ghost button--small">
          Apply
        </button>
      </form>
      {invalid ? (
        <p className="field__error scale-control__error" id={errorId} role="alert">
          {SCALE_MESSAGE}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Metric / US (docs/rules.md#units): a plain form that remembers the choice in a cookie and shows
 * the page again at the same amounts; the server writes the lines and the steps' temperatures.
 */
export function UnitsControl({ recipeId, units, serves, scale }: { recipeId: string; units: UnitSystem | null; serves: number | null; scale: string | null }) {
  const failure = useActionData<RecipePageActionData>();
  const error = failure && "unitsError" in failure ? failure.unitsError : null;
  return (
    <Form method="post" action={paths.recipe(recipeId)} className="units-control" preventScrollReset>
      <input type="hidden" name="intent" value="units" />
      {serves === null ? null : <input type="hidden" name="serves" value={serves} />}
      {scale === null ? null : <input type="hidden" name="scale" value={scale} />}
      <span className="units-control__label" id="units-label">
        Units
      </span>
      <span role="group" aria-labelledby="units-label" className="units-control__choices">
        <button type="submit" name="units" value="metric" className="units-control__choice" aria-pressed={units === "metric"}>
          Metric
        </button>
        <button type="submit" name="units" value="us" className="units-control__choice" aria-pressed={units === "us"}>
          US
        </button>
      </span>
      {error ? (
        <p className="field__error units-control__error" role="alert">
          {error}
        </p>
      ) : null}
    </Form>
  );
}
