import clsx from "clsx";

// The character counter under the recipe name and description.

export function Counter({ value, max }: { value: string; max: number }) {
  return <span className={clsx("editor-counter", value.length > max && "is-over")}>{`${value.length}/${max}`}</span>;
}
