// The search box: a GET form that works without JavaScript; with it, it searches as you type.
import { Form, useSubmit } from "@remix-run/react";
import { useEffect, useRef, type ChangeEvent, type RefObject } from "react";

import { MAX_QUERY_LENGTH } from "~/lib/limits";
import { paths } from "~/lib/paths";

const PLACEHOLDER = "Search recipes, ingredients, users...";
const TYPING_DELAY_MS = 250;

/**
 * The GET form: without JavaScript it submits on Enter or `Search`. With JavaScript (`live`) it
 * also submits as you type, debounced; every search after the first replaces its history entry.
 */
export function SearchForm({
  q,
  inputRef,
  live = false,
  onSent,
}: {
  q: string;
  inputRef?: RefObject<HTMLInputElement>;
  live?: boolean;
  /** Told each query the box sends (its results then leave the box alone). */
  onSent?: (query: string) => void;
}) {
  const submit = useSubmit();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const search = (form: HTMLFormElement) => {
    clearTimeout(timer.current);
    const query = [...String(new FormData(form).get("q") ?? "").trim()].slice(0, MAX_QUERY_LENGTH).join("");
    onSent?.(query);
    submit(query ? { q: query } : {}, {
      method: "get",
      action: paths.search(),
      replace: new URLSearchParams(window.location.search).has("q"),
      preventScrollReset: true,
    });
  };

  return (
    <Form
      method="get"
      action={paths.search()}
      role="search"
      className="search-form"
      onSubmit={(event) => {
        if (!live) return;
        event.preventDefault();
        search(event.currentTarget);
      }}
    >
      <label htmlFor="search-q" className="visually-hidden">
        Search recipes, ingredients and users
      </label>
      <input
        ref={inputRef}
        id="search-q"
        type="search"
        name="q"
        placeholder={PLACEHOLDER}
        defaultValue={q}
        maxLength={MAX_QUERY_LENGTH}
        autoComplete="off"
        enterKeyHint="search"
        onChange={(event: ChangeEvent<HTMLInputElement>) => {
          if (!live) return;
          const form = event.currentTarget.form;
          clearTimeout(timer.current);
          if (form) timer.current = setTimeout(() => search(form), TYPING_DELAY_MS);
        }}
      />
      <button type="submit" className="button">
        Search
      </button>
    </Form>
  );
}
