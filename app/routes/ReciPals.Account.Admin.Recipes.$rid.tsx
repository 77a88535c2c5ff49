// A recipe in the admin area (/ReciPals/Account/Admin/Recipes/{id}): the address's contract and the
// detail around its tabs; what it shows and what `Delete` does is app/server/pages/admin-recipe-page.server.ts.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useActionData, useLoaderData, useLocation } from "@remix-run/react";

import { AdminDetailNotFound } from "~/components/admin-list";
import { ConfirmButton, ConfirmStep } from "~/components/confirm";
import { Link } from "~/components/link";
import { paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { adminRecipePageAction, loadAdminRecipePage } from "~/server/pages/admin-recipe-page.server";

const DELETE_RECIPE_MESSAGE = "Are you sure you want to delete this recipe?";

export const loader = ({ request, params, context }: LoaderFunctionArgs) => loadAdminRecipePage(request, params.rid ?? "", context);

export const action = ({ request, params, context }: ActionFunctionArgs) => adminRecipePageAction(request, params.rid ?? "", context);

export default function AdminRecipeDetail() {
  const { recipe } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const { pathname } = useLocation();
  const onPost = /\/Post$/i.test(pathname);
  const tabs = [
    { label: "Recipe", to: paths.adminRecipe(recipe.recipe_id), current: !onPost },
    { label: "Post", to: paths.adminRecipePost(recipe.recipe_id), current: onPost },
  ];
  return (
    <aside className="admin-detail" aria-label={`Recipe ${recipe.name}`}>
      <header className="admin-detail__header">
        <img src={recipe.photo || RECIPE_PLACEHOLDER_IMAGE} alt="" width={96} height={72} />
        <div>
          <h2>{recipe.name}</h2>
          <p className="muted">by {recipe.creator?.username ?? "Unknown User"}</p>
        </div>
      </header>
      <nav className="tabs" aria-label="Recipe details">
        {tabs.map((tab) => (
          <Link key={tab.label} to={tab.to} aria-current={tab.current ? "page" : undefined} className={tab.current ? "is-active" : undefined}>
            {tab.label}
          </Link>
        ))}
      </nav>
      <Outlet />
      {result && "error" in result ? (
        <p className="form-alert" role="alert">
          {result.error}
        </p>
      ) : null}
      {result && "confirm" in result ? (
        <ConfirmStep
          intent="delete"
          message={DELETE_RECIPE_MESSAGE}
          label="Delete"
          action={paths.adminRecipe(recipe.recipe_id)}
          cancel={
            <Link to={paths.adminRecipe(recipe.recipe_id)} className="button button--ghost">
              Cancel
            </Link>
          }
        />
      ) : null}
      <div className="actions">
        <ConfirmButton intent="delete" message={DELETE_RECIPE_MESSAGE} label="Delete" action={paths.adminRecipe(recipe.recipe_id)} />
        <Link to={paths.adminRecipes()} className="button button--ghost">
          Close
        </Link>
      </div>
    </aside>
  );
}

export function ErrorBoundary() {
  return <AdminDetailNotFound message="Recipe not found." closeTo={paths.adminRecipes()} />;
}
