import clsx from "clsx";
import { useEffect, useId, useRef, type InputHTMLAttributes, type ReactNode, type RefObject } from "react";

/** The form-level message: the product's alert texts (docs/rules.md#screens-and-messages) and anything not tied to one field. */
export function FormAlert({ message, id }: { message: string | null | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p className="form-alert" role="alert" id={id}>
      {message}
    </p>
  );
}

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: string;
  name: string;
  /** Shown under the field; `invalid` alone marks the field without repeating the form alert. */
  error?: string | null;
  invalid?: boolean;
  hint?: ReactNode;
}

/** A labelled input tied to its error text (aria-invalid + aria-describedby). */
export function TextField({ label, name, error, invalid, hint, className, ...input }: TextFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const isInvalid = Boolean(error) || Boolean(invalid);
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={clsx("field", className)}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        aria-invalid={isInvalid || undefined}
        aria-describedby={describedBy}
        {...input}
      />
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

/** Field error text unless it only repeats the form alert (then the field is just marked invalid). */
export function fieldError(
  failure: { formError: string | null; fieldErrors: Partial<Record<string, string>> } | undefined,
  name: string,
): { error: string | null; invalid: boolean } {
  const message = failure?.fieldErrors[name];
  if (!message) return { error: null, invalid: false };
  return { error: message === failure?.formError ? null : message, invalid: true };
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
