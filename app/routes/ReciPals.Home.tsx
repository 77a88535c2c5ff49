import type { MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Home · ReciPals" }];

export default function HomeRoute() {
  return (
    <section>
      <h1 className="page-title">Home</h1>
    </section>
  );
}
