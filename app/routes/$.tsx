import { ErrorPage } from "~/components/error-page";

// Unknown URLs are real 404s (not a soft 200 page).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFound() {
  return <ErrorPage status={404} />;
}

export function ErrorBoundary() {
  return <ErrorPage status={404} />;
}
