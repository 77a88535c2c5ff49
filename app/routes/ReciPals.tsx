import { Outlet, useSearchParams } from "@remix-run/react";

import { SiteNav } from "~/components/site-nav";
import { noticeText } from "~/lib/notices";
import { useOptionalUser } from "~/root";

export default function ReciPalsLayout() {
  const user = useOptionalUser();
  const notice = noticeText(useSearchParams()[0].get("notice"));
  return (
    <div className="shell">
      <SiteNav viewer={user} />
      <main className="shell__main" id="main">
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        <Outlet />
      </main>
    </div>
  );
}
