import type { z } from "zod";

/** What an action answers when it refuses a form: messages plus what was typed (never passwords). */
export interface FormFailure<Field extends string = string> {
  formError: string | null;
  fieldErrors: Partial<Record<Field, string>>;
  fields: Partial<Record<Field, string>>;
}

/** Text fields of a form, with every password-like field left out so it is never echoed back. */
export function keptFields<Field extends string>(
  formData: FormData,
  names: readonly Field[],
): Partial<Record<Field, string>> {
  const fields: Partial<Record<Field, string>> = {};
  for (const name of names) {
    if (/password/i.test(name)) continue;
    const value = formData.get(name);
    if (typeof value === "string") fields[name] = value;
  }
  return fields;
}

/** Reads the named text fields; a file or a missing field reads as the empty string. */
export function formValues<Field extends string>(formData: FormData, names: readonly Field[]): Record<Field, string> {
  const values = {} as Record<Field, string>;
  for (const name of names) {
    const value = formData.get(name);
    values[name] = typeof value === "string" ? value : "";
  }
  return values;
}

/**
 * Turns zod issues into one message per field (the first wins). `alertMessages` are the
 * product's texts (docs/rules.md#screens-and-messages) that are also shown once as the form's alert.
 */
export function toFailure<Field extends string>(
  error: z.ZodError,
  formData: FormData,
  names: readonly Field[],
  alertMessages: readonly string[] = [],
): FormFailure<Field> {
  const fieldErrors: Partial<Record<Field, string>> = {};
  let formError: string | null = null;
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field === "string" && (names as readonly string[]).includes(field)) {
      fieldErrors[field as Field] ??= issue.message;
    }
    if (formError === null && alertMessages.includes(issue.message)) formError = issue.message;
  }
  if (formError === null && error.issues.length > 0 && Object.keys(fieldErrors).length === 0) {
    formError = error.issues[0]?.message ?? "Please check the form.";
  }
  return { formError, fieldErrors, fields: keptFields(formData, names) };
}
