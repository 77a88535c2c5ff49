import type { FetcherWithComponents } from "@remix-run/react";
import type { FormEvent, FormHTMLAttributes } from "react";

import { FETCHER_FIELD } from "~/lib/interaction";

// A form that posts through a fetcher with JavaScript and as a plain form post without it, like
// `fetcher.Form`, but as a bare <form> with one submit handler. `fetcher.Form` resolves its action
// and runs the router's form hooks for every card of a feed on every render; our actions are
// absolute paths already (app/lib/paths.ts), so that work bought nothing (bench/README.md).

interface FetcherFormProps extends Omit<FormHTMLAttributes<HTMLFormElement>, "action" | "method" | "onSubmit"> {
  fetcher: Pick<FetcherWithComponents<unknown>, "submit">;
  /** An absolute path: the route whose action receives the post. */
  action: string;
  /** Keep the scroll position when the fetcher's revalidation lands. */
  preventScrollReset?: boolean;
}

export function FetcherForm({ fetcher, action, preventScrollReset, ...props }: FetcherFormProps) {
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (event.defaultPrevented) return;
    event.preventDefault();
    // The button pressed carries its name and value (intent=like, …), as in a plain post.
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const form = new FormData(event.currentTarget, submitter instanceof HTMLButtonElement || submitter instanceof HTMLInputElement ? submitter : null);
    // The script sends it, so the script takes the answer as data (app/server/http/interaction.server.ts),
    // even when it runs while the page is still hydrating.
    form.set(FETCHER_FIELD, "1");
    fetcher.submit(form, { method: "post", action, preventScrollReset });
  };
  return <form {...props} method="post" action={action} data-discover="true" onSubmit={onSubmit} />;
}

/** The refusal a fetcher's settled answer carried (`{ error }`, see interaction.server.ts), or null. */
export function fetcherError(fetcher: { state: string; data?: unknown }): string | null {
  const { data } = fetcher;
  if (fetcher.state !== "idle" || typeof data !== "object" || data === null || !("error" in data)) return null;
  return typeof data.error === "string" ? data.error : null;
}

/** That refusal beside the control that was refused. */
export function InlineError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="inline-error" role="alert">
      {message}
    </p>
  );
}
