import clsx from "clsx";

// useResultKey lives with the other small hooks (app/lib/hooks.ts): pages that need it alone, such
// as the recipe page, do not load these fields.
export { useResultKey } from "~/lib/hooks";
import { useEffect, useId, type InputHTMLAttributes, type ReactNode, type RefObject, type TextareaHTMLAttributes } from "react";

/** The form-level message: the product's alert texts (docs/rules.md#screens-and-messages) and anything not tied to one field. */
export function FormAlert({ message, id }: { message: string | null | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p className="form-alert" role="alert" id={id}>
      {message}
    </p>
  );
}

interface FieldProps {
  label: string;
  name: string;
  /** Shown under the field; `invalid` alone marks the field without repeating the form alert. */
  error?: string | null;
  invalid?: boolean;
  hint?: ReactNode;
  /**
   * The hint also carries notes said when the field changes (read out as a status): a note that
   * takes the hint's place never moves what is below the field.
   */
  liveHint?: boolean;
  /** Another element that also describes the field (a message shared by several fields). */
  describedBy?: string;
}

/**
 * A label, the control, its hint and its error text, tied together (aria-invalid +
 * aria-describedby). `children` renders the input, select or textarea with the props it is given.
 */
export function Labelled({
  label,
  error,
  invalid,
  hint,
  liveHint,
  describedBy,
  className,
  children,
}: Omit<FieldProps, "name"> & {
  className?: string;
  children: (aria: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ReactNode;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const isInvalid = Boolean(error) || Boolean(invalid);
  const ids = [error ? errorId : null, hint ? hintId : null, describedBy ?? null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={clsx("field", className)}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": isInvalid || undefined, "aria-describedby": ids })}
      {hint ? (
        <p className="field__hint" id={hintId} role={liveHint ? "status" : undefined}>
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

type TextFieldProps = FieldProps & Omit<InputHTMLAttributes<HTMLInputElement>, "id">;

/** A labelled input tied to its error text. */
export function TextField({ label, name, error, invalid, hint, liveHint, describedBy, className, ...input }: TextFieldProps) {
  return (
    <Labelled {...{ label, error, invalid, hint, liveHint, describedBy, className }}>{(aria) => <input name={name} {...input} {...aria} />}</Labelled>
  );
}

type TextAreaProps = FieldProps & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "id">;

/** A labelled textarea, wired like TextField. */
export function TextArea({ label, name, error, invalid, hint, describedBy, className, ...textarea }: TextAreaProps) {
  return (
    <Labelled {...{ label, error, invalid, hint, describedBy, className }}>{(aria) => <textarea name={name} {...textarea} {...aria} />}</Labelled>
  );
}

/** Field error text unless it only repeats the form alert (then the field is just marked invalid). */
export function fieldError(
  failure: { formError: string | null; fieldErrors: Partial<Record<string, string>> } | undefined,
  name: string,
): { error: string | null; invalid: boolean } {
  const message = failure?.fieldErrors[name];
  if (!message) return { error: null, invalid: false };
  return { error: message === failure?.formError ? null : message, invalid: true };
}

/** After a refused submission, focus moves to the first invalid field (or the form alert). */
export function useFocusInvalid(form: RefObject<HTMLFormElement | null>, result: unknown) {
  useEffect(() => {
    if (!result || !form.current) return;
    const target = form.current.querySelector<HTMLElement>('[aria-invalid="true"], [role="alert"]');
    if (target) {
      if (target.getAttribute("role") === "alert") target.setAttribute("tabindex", "-1");
      target.focus();
    }
  }, [form, result]);
}
