import { Outlet, useSearchParams } from "@remix-run/react";

import { SiteNav, TopBar } from "~/components/site-nav";
import { noticeText } from "~/lib/notices";
import { useOptionalUser, useUnreadCount } from "~/root";

export default function ReciPalsLayout() {
  const user = useOptionalUser();
  const unread = useUnreadCount();
  const notice = noticeText(useSearchParams()[0].get("notice"));
  return (
    <div className="shell">
      {/* The first Tab lands here, so keyboard users can pass the navigation by. */}
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <TopBar viewer={user} unread={unread} />
      <SiteNav viewer={user} />
      <main className="shell__main" id="main" tabIndex={-1}>
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
