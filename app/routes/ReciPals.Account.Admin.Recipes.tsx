// The admin's Recipes table (/ReciPals/Account/Admin/Recipes): the address's contract and the
// component tree; what it shows is app/server/pages/admin-recipes-page.server.ts.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";

import { AdminPager, AdminSearch } from "~/components/admin-list";
import { Link } from "~/components/link";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { loadAdminRecipesPage } from "~/server/pages/admin-recipes-page.server";

export const loader = ({ request, context }: LoaderFunctionArgs) => loadAdminRecipesPage(request, context);

export default function AdminRecipesRoute() {
  const { recipes, q, page, hasMore } = useLoaderData<typeof loader>();
  return (
    <section className="admin-panel">
      <h1 className="page-title">Recipes</h1>
      <AdminSearch label="Search recipes by name, id, creator..." q={q} />
      {/* The selected row opens above the table, where it is seen without scrolling. */}
      <Outlet />
      <div className="table-scroll">
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Creator Id</th>
              <th scope="col">Recipe Id</th>
              <th scope="col">Post Id</th>
              <th scope="col" className="admin-table__num">Likes</th>
              <th scope="col" className="admin-table__num">Comments</th>
              <th scope="col">Date Created</th>
            </tr>
          </thead>
          <tbody>
            {recipes.map((recipe) => (
              <tr key={recipe.recipe_id}>
                <td>
                  <Link to={paths.adminRecipe(recipe.recipe_id)} className="admin-table__name">
                    <img src={recipe.photo || RECIPE_PLACEHOLDER_IMAGE} alt="" width={40} height={30} loading="lazy" />
                    {recipe.name}
                  </Link>
                </td>
                <td>
                  <code className="admin-table__id" title={recipe.user_created ?? undefined}>{recipe.user_created ?? "N/A"}</code>
                </td>
                <td>
                  <code className="admin-table__id" title={recipe.recipe_id}>{recipe.recipe_id}</code>
                </td>
                <td>
                  <code className="admin-table__id" title={recipe.post_id ?? undefined}>{recipe.post_id ?? "N/A"}</code>
                </td>
                <td className="admin-table__num">{recipe.likes}</td>
                <td className="admin-table__num">{recipe.comments}</td>
                <td>{recipe.created_at || "N/A"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {recipes.length === 0 ? <p className="empty-state">No recipes match "{q}".</p> : null}
      <AdminPager base={paths.adminRecipes()} q={q} page={page} hasMore={hasMore} />
    </section>
  );
}
