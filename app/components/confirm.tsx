import { Form } from "@remix-run/react";
import type { ReactNode } from "react";

/**
 * A destructive button with the confirmation of docs/rules.md#confirmations: with JavaScript a confirm dialog with
 * the exact text; without it the form goes without `confirm=yes` and the action answers
 * with a confirmation step (ConfirmStep) showing the same text. `confirm=yes` is set by the
 * handler that asked, when it asked: a press while the page hydrates is asked once, never twice
 * (docs/rules.md#hurried-clicks).
 */
export function ConfirmButton({
  intent,
  message,
  label,
  fields = {},
  action,
  className = "button button--danger",
}: {
  intent: string;
  message: string;
  label: string;
  fields?: Record<string, string>;
  action?: string;
  className?: string;
}) {
  return (
    <Form
      method="post"
      action={action}
      className="inline-form"
      onSubmit={(event) => {
        if (!window.confirm(message)) return event.preventDefault();
        (event.currentTarget.elements.namedItem("confirm") as HTMLInputElement).value = "yes";
      }}
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <input type="hidden" name="confirm" value="" />
      <button type="submit" name="intent" value={intent} className={className}>
        {label}
      </button>
    </Form>
  );
}

/** The no-JavaScript confirmation step: the question, then the same submit with `confirm=yes`. */
export function ConfirmStep({
  intent,
  message,
  label,
  fields = {},
  cancel,
  action,
}: {
  intent: string;
  message: string;
  label: string;
  fields?: Record<string, string>;
  cancel: ReactNode;
  action?: string;
}) {
  return (
    <div className="confirm-step" role="alertdialog" aria-labelledby="confirm-step-text">
      <p id="confirm-step-text">{message}</p>
      <Form method="post" action={action} className="actions">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        {cancel}
        <button type="submit" name="intent" value={intent} className="button button--danger">
          {label}
        </button>
      </Form>
    </div>
  );
}
