import { useFetcher } from "@remix-run/react";
import { useState } from "react";

import { useChangeEffect } from "~/lib/hooks";

import { Link } from "./link";

/** A page of a paged list, as its loader gives it. */
export interface ListPage<Item> {
  items: Item[];
  page: number;
  hasMore: boolean;
}

/**
 * The pages `Load more` appended (JavaScript) after the page the address shows. Without
 * JavaScript the link opens the next page instead. `list` names the list shown: when it changes
 * (another person, another tab) the appended pages go; a fresh read of the same list (after a
 * like or a follow) keeps them. `pageOf` picks the next page out of the loader's answer, or null
 * when the answer is of another list.
 */
export function useMorePages<Data, Item, Page extends ListPage<Item> = ListPage<Item>>({
  list,
  first,
  hrefOf,
  pageOf,
  idOf,
}: {
  list: string;
  first: Page;
  hrefOf: (page: number) => string;
  pageOf: (data: Data) => Page | null;
  idOf: (item: Item) => string;
}) {
  const fetcher = useFetcher<Data>();
  const answer = fetcher.data;
  const [appended, setAppended] = useState<{ list: string; pages: Page[]; answer?: Data }>({ list, pages: [] });
  // Another list: its pages start over, and the last answer (of the list before) is not added.
  if (appended.list !== list) setAppended({ list, pages: [], answer });
  const pages = appended.list === list ? appended.pages : [];

  useChangeEffect(answer, () => {
    const next = answer === undefined ? null : pageOf(answer);
    if (!next) return;
    setAppended((current) => {
      // An answer is added once, only after the last page shown, and never to another list.
      if (current.answer === answer) return current;
      const shown = current.list === list ? current.pages : [];
      const last = shown.at(-1)?.page ?? first.page;
      return next.page === last + 1 ? { list, pages: [...shown, next], answer } : { ...current, answer };
    });
  });

  const last = pages.at(-1) ?? first;
  // A post added meanwhile moves the pages by one: an item shows once.
  const seen = new Set<string>();
  const items = [first, ...pages]
    .flatMap((page) => page.items)
    .filter((item) => !seen.has(idOf(item)) && Boolean(seen.add(idOf(item))));
  const href = hrefOf(last.page + 1);
  return {
    items,
    pages: [first, ...pages],
    hasMore: last.hasMore,
    href,
    loading: fetcher.state !== "idle",
    load: () => {
      if (fetcher.state === "idle") fetcher.load(href);
    },
  };
}

/** The `Load more` link: with JavaScript it appends the next page in place; without, it opens it. */
export function LoadMore({ more, className }: { more: { href: string; loading: boolean; load: () => void }; className: string }) {
  return (
    <p className={className}>
      <Link
        to={more.href}
        className="button button--ghost"
        aria-busy={more.loading || undefined}
        onClick={(event) => {
          // A plain click; one asking for a new tab or window opens the page there.
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          more.load();
        }}
      >
        {more.loading ? "Loading…" : "Load more"}
      </Link>
    </p>
  );
}
