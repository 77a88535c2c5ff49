// The admin area (/ReciPals/Account/Admin): the address's contract and the layout with its tabs;
// the guard is app/server/pages/admin-page.server.ts.
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useLocation } from "@remix-run/react";

import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { ADMIN_REPORTS_PATH } from "~/lib/reports";
import { stylesheetLinks, type StyledRoute } from "~/root";
import { loadAdminPage } from "~/server/pages/admin-page.server";
import adminStyles from "~/styles/admin.css";

export const meta: MetaFunction = () => [{ title: "Admin · ReciPals" }];
export const handle: StyledRoute = { styles: [adminStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminPage(request, context);

const TABS = [
  { label: "Users", to: paths.adminUsers() },
  { label: "Recipes", to: paths.adminRecipes() },
  { label: "Reports", to: ADMIN_REPORTS_PATH },
  { label: "Federation", to: paths.adminFederation() },
] as const;

export default function AdminLayout() {
  const { pathname } = useLocation();
  return (
    <div className="admin">
      <nav className="admin__nav" aria-label="Admin">
        <ul>
          {TABS.map((tab) => {
            const active = pathname.toLowerCase().startsWith(tab.to.toLowerCase());
            return (
              <li key={tab.label}>
                <Link to={tab.to} aria-current={active ? "page" : undefined} className={active ? "is-active" : undefined}>
                  {tab.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <div className="admin__main">
        <Outlet />
      </div>
    </div>
  );
}
