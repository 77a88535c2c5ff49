import clsx from "clsx";
import { useId, type ReactNode, type TextareaHTMLAttributes } from "react";

// Small pieces of the recipe form: the character counter and a labelled textarea wired like TextField.

export function Counter({ value, max }: { value: string; max: number }) {
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
export function TextArea({ label, name, error, invalid, hint, describedBy, className, ...rest }: TextAreaProps) {
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
