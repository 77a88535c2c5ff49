import { isRouteErrorResponse, useRouteError } from "@remix-run/react";

import { paths } from "~/lib/paths";

const DEFAULT_MESSAGES: Record<number, { title: string; text: string }> = {
  400: { title: "Bad request", text: "Something in that request was not right." },
  401: { title: "Please sign in", text: "You need to be signed in to do that." },
  403: { title: "Not allowed", text: "You are not allowed to do that." },
  404: { title: "Page not found", text: "We couldn't find the page you were looking for." },
  500: { title: "Something went wrong", text: "Please try again in a moment." },
};

/** A whole page for a failed request: it renders without any loader data. */
export function ErrorPage({ status, message }: { status: number; message?: string }) {
  const known = DEFAULT_MESSAGES[status] ?? DEFAULT_MESSAGES[500]!;
  return (
    <main className="error-page">
      <p className="error-page__status">{status}</p>
      <h1>{known.title}</h1>
      <p role="alert">{message || known.text}</p>
      <p>
        <a href={paths.home()}>Back to Home</a>
      </p>
    </main>
  );
}

/** The boundary of an action-only route: a refused plain form post shows its status and message. */
export function ActionRouteErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    return <ErrorPage status={error.status} message={typeof error.data === "string" ? error.data : undefined} />;
  }
  throw error;
}
