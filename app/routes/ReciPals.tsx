import { Outlet } from "@remix-run/react";

import { SiteNav } from "~/components/site-nav";
import { useOptionalUser } from "~/root";

export default function ReciPalsLayout() {
  const user = useOptionalUser();
  return (
    <div className="shell">
      <SiteNav viewer={user} />
      <main className="shell__main" id="main">
        <Outlet />
      </main>
    </div>
  );
}
