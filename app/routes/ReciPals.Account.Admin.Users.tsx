// The admin's Users table (/ReciPals/Account/Admin/Users): the address's contract and the component
// tree; what it shows and what `Add User` does is app/server/pages/admin-users-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Outlet, useActionData, useLoaderData, useNavigation } from "@remix-run/react";

import { AdminPager, AdminSearch } from "~/components/admin-list";
import { Avatar } from "~/components/avatar";
import { Link } from "~/components/link";
import { paths } from "~/lib/paths";
import { adminUsersPageAction, loadAdminUsersPage } from "~/server/pages/admin-users-page.server";

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminUsersPage(request, context);

export const action = ({ request, context }: ActionFunctionArgs) => adminUsersPageAction(request, context);

export default function AdminUsersRoute() {
  const { users, q, page, hasMore } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const adding = useNavigation().formData?.get("intent") === "add-user";
  return (
    <section className="admin-panel">
      <h1 className="page-title">Users</h1>
      <div className="admin-toolbar">
        <AdminSearch label="Search users" q={q} />
        <Form method="post">
          <button type="submit" name="intent" value="add-user" className="button" disabled={adding}>
            Add User
          </button>
        </Form>
      </div>
      {result && "created" in result ? (
        <p className="notice" role="status">
          Created <Link to={paths.adminUser(result.created.id)}>{result.created.username}</Link>. Initial password (shown only
          once): <code>{result.created.password}</code>
        </p>
      ) : null}
      {result && "error" in result ? <p className="form-alert" role="alert">{result.error}</p> : null}
      {/* The selected row opens above the table, where it is seen without scrolling. */}
      <Outlet />
      <div className="table-scroll">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">User Id</th>
              <th scope="col">Username</th>
              <th scope="col">Role</th>
              <th scope="col" className="admin-table__num">Posts</th>
              <th scope="col" className="admin-table__num">Followers</th>
              <th scope="col" className="admin-table__num">Following</th>
            </tr>
          </thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.id}>
                <td>
                  <Link to={paths.adminUser(user.id)} className="admin-table__name">
                    <Avatar src={user.profile} size={28} />
                    {user.name}
                  </Link>
                </td>
                <td>
                  <code className="admin-table__id" title={user.id}>{user.id}</code>
                </td>
                <td>{user.username}</td>
                <td>{user.role}</td>
                <td className="admin-table__num">{user.posts}</td>
                <td className="admin-table__num">{user.followers}</td>
                <td className="admin-table__num">{user.following}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {users.length === 0 ? <p className="empty-state">No users match "{q}".</p> : null}
      <AdminPager base={paths.adminUsers()} q={q} page={page} hasMore={hasMore} />
    </section>
  );
}
