import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LinksFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import type { ShouldRevalidateFunctionArgs } from "@remix-run/react";
import { Form, isRouteErrorResponse, useActionData, useFetcher, useLoaderData, useLocation, useNavigation, useRouteError } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";

import { Avatar } from "~/components/avatar";
import { CommentItem, type ListedComment } from "~/components/comment-item";
import { CookedIt } from "~/components/cooked-it";
import { ErrorPage } from "~/components/error-page";
import { FetcherForm, fetcherError, InlineError } from "~/components/fetcher-form";
import { InteractionFields } from "~/components/interaction-fields";
import { SaveButton } from "~/components/save-button";
import { useChangeEffect, useHydrated, useResultKey } from "~/lib/hooks";
import { isAdmin } from "~/lib/permissions";
import { DEFAULT_PROFILE_IMAGE, paths, RECIPE_PLACEHOLDER_IMAGE } from "~/lib/paths";
import { withNotice } from "~/lib/notices";
import { MAX_SERVES, parseServes, SCALE_CHOICE_LABELS, SCALE_CHOICES, SCALE_MESSAGE } from "~/lib/servings";
import { absoluteUrl, recipeJsonLd, shareMeta } from "~/server/http/share-tags.server";
import { parseScale, scaledSections } from "~/server/services/amounts.server";
import { convertStepTemperatures, parseUnitSystem, UNITS_MESSAGE, unitsCookie, unitsOf } from "~/server/http/units.server";
import type { UnitSystem } from "~/lib/units";
import { readForm } from "~/server/http/body.server";
import { imageSrcSet, PHOTO_SIZES, placeholderFor } from "~/server/http/photos.server";
import { CacheScope } from "~/server/cache/scopes.server";
import { invariantResponse, readIntent } from "~/server/http/responses.server";
import { isFetcherSubmission } from "~/server/http/interaction.server";
import { listComments, type CommentView } from "~/server/queries/comments.server";
import { COMMENT_MAX } from "~/server/validation/comment.server";
import { countLikes } from "~/server/queries/likes.server";
import { COOKS_SHOWN_ON_RECIPE, getOwnCook, listRecipeCooks, recipeCookStats } from "~/server/queries/cooks.server";
import { getRecipeDetail } from "~/server/queries/recipes.server";
import { isRecipeSaved } from "~/server/queries/saved.server";
import { getLens, getUser, requireUser } from "~/server/auth/session.server";
import { isHidden, UNAVAILABLE_RECIPE } from "~/server/queries/visibility.server";
import { scopeSharedCache } from "~/server/cache/shared-cache.server";
import { addComment, deletableComments } from "~/server/services/interactions.server";
import { withReportLinks } from "~/server/services/moderation.server";
import { isOnShoppingList } from "~/server/services/shopping.server";
import { siteOrigin } from "~/server/http/site.server";
import { stylesheetLinks, type StyledRoute } from "~/root";
import recipeStyles from "~/styles/recipe.css";
import { Link } from "~/components/link";

export const handle: StyledRoute = { styles: [recipeStyles] };
export const links: LinksFunction = () => stylesheetLinks(handle);

export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [{ title: "Recipe not found · ReciPals" }];
  const { recipe, share } = data;
  return [
    { title: `${recipe.name} · ReciPals` },
    { name: "description", content: recipe.description },
    ...share.tags,
    { "script:ld+json": share.jsonLd },
  ];
};

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const recipe = await getRecipeDetail(params.rid ?? "");
  invariantResponse(recipe, "Recipe not found.", 404);
  // The recipe with its post (comments, likes). Its creator's and commenters' names and pictures
  // change everything when they change (app/server/cache/scopes.server.ts).
  scopeSharedCache(context, [CacheScope.recipe(recipe.recipe_id)]);
  const viewer = await getUser(request);
  const lens = await getLens(request);
  invariantResponse(!(await isHidden(lens, recipe.user_created)), UNAVAILABLE_RECIPE, 404);
  const { searchParams } = new URL(request.url);
  const [comments, saved, likes, onShoppingList, cookStats, cooks, ownCook] = await Promise.all([
    // The recipe's owner also sees, collapsed, the comments of people a block hides from them.
    recipe.post_id
      ? listComments(recipe.post_id, viewer?.id === recipe.user_created ? { without: lens.quiet, ownerSees: lens.hidden, blocking: lens.blocking } : { without: lens.quiet })
      : Promise.resolve([] as CommentView[]),
    viewer ? isRecipeSaved(viewer.id, recipe.recipe_id) : Promise.resolve(false),
    recipe.post_id ? countLikes(recipe.post_id) : Promise.resolve(0),
    viewer ? isOnShoppingList(viewer.id, recipe.recipe_id) : Promise.resolve(false),
    recipeCookStats(recipe.recipe_id, { without: lens.quiet }),
    // The newest entries, or all of them when asked (`?cooked=all`).
    listRecipeCooks(recipe.recipe_id, { without: lens.quiet, limit: searchParams.get("cooked") === "all" ? undefined : COOKS_SHOWN_ON_RECIPE }),
    viewer ? getOwnCook(viewer.id, recipe.recipe_id) : Promise.resolve(undefined),
  ]);
  const origin = siteOrigin(request);
  const serves = parseServes(searchParams.get("serves")) ?? recipe.serves ?? 1;
  const scaleText = recipe.serves === null ? searchParams.get("scale") : null;
  const scaleAsked = parseScale(scaleText);
  const factor = amountsFactor(recipe.serves, serves, scaleAsked);
  const units = unitsOf(request.headers.get("Cookie"));
  const url = `${origin}${paths.recipe(recipe.recipe_id)}`;
  return {
    recipe,
    // Its copies for the photo's srcset, named here so the page's script need not carry the rule,
    // and its inline placeholder.
    photo: { srcSet: imageSrcSet(recipe.photo), avifSrcSet: imageSrcSet(recipe.photo, "avif"), sizes: PHOTO_SIZES.recipe, placeholder: await placeholderFor(recipe.photo) },
    // Each other person's comment links to its report page.
    comments: withReportLinks("comment", comments, viewer?.id ?? null, (comment) => ({ id: comment.comment_id, ownerId: comment.author?.id })),
    // The comment box's limit, from here: the page's script has no room for ~/lib/limits (a module more).
    commentMax: COMMENT_MAX,
    saved,
    onShoppingList,
    serves,
    // A multiplier, for a recipe without stated servings (docs/rules.md#servings-scaling).
    scale: scaleText,
    // The multiplier read here: the page reads a typed one with the number reader it loads later.
    scaleAsked,
    // The lines at the amounts the address asks for, scaled here: the page shows them without
    // the quantity reader, which it loads only once someone changes the amounts.
    shown: {
      factor,
      sections: scaledSections(recipe.ingredients_sec, factor, units),
      steps: units ? recipe.steps.map((step) => convertStepTemperatures(step, units)) : recipe.steps,
    },
    // Metric or US, or null for the amounts as written (docs/rules.md#units).
    units,
    // The share tags, made here: the page's script has no room for ~/lib/structured-data.
    share: {
      tags: shareMeta({ title: recipe.name, description: recipe.description, image: absoluteUrl(origin, recipe.photo), url, type: "article" }),
      jsonLd: recipeJsonLd(recipe, { origin, url, likes, comments: comments.length, cooks: { ...cookStats, latest: cooks.slice(0, 5) } }),
    },
    cooked: {
      stats: cookStats,
      entries: withReportLinks(
        "cook",
        cooks.map(({ cook_id, rating, note, servings, photo, created_at, person }) => ({ cook_id, rating, note, servings, photo, created_at, person })),
        viewer?.id ?? null,
        (entry) => ({ id: entry.cook_id, ownerId: entry.person.id }),
      ),
      viewer: viewer && { id: viewer.id, admin: isAdmin(viewer), mayCook: viewer.id !== recipe.user_created, hasEntry: ownCook !== undefined },
    },
    signedIn: viewer !== null,
    // 'Edit Recipe' is shown to the creator only (docs/rules.md#who-may-do-what) (admins edit from the admin area).
    canEdit: viewer !== null && viewer.id === recipe.user_created,
    // The comments the viewer may delete (docs/rules.md#deleting-a-comment).
    deletable: deletableComments(viewer, comments, recipe.creator?.id ?? null),
  };
}

// Changing the serves or the multiplier only rescales on the client: no need to read the recipe again.
export function shouldRevalidate({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (!formMethod && currentUrl.pathname === nextUrl.pathname) {
    const a = new URLSearchParams(currentUrl.search);
    const b = new URLSearchParams(nextUrl.search);
    for (const name of ["serves", "scale"]) {
      a.delete(name);
      b.delete(name);
    }
    if (a.toString() === b.toString()) return false;
  }
  return defaultShouldRevalidate;
}

export async function action({ request, params }: ActionFunctionArgs) {
  const recipeId = params.rid ?? "";
  const formData = await readForm(request);
  // The units choice is anyone's, signed in or not: a cookie, then the same page again.
  if (readIntent(formData) === "units") {
    const units = parseUnitSystem(formData.get("units"));
    if (!units) return data({ unitsError: UNITS_MESSAGE }, { status: 400 });
    const serves = parseServes(String(formData.get("serves") ?? ""));
    const scale = parseScale(String(formData.get("scale") ?? ""));
    const query = serves !== null ? `?serves=${serves}` : typeof scale === "number" ? `?scale=${scale}` : "";
    return redirect(`${paths.recipe(recipeId)}${query}#ingredients-heading`, { headers: { "Set-Cookie": unitsCookie(units) } });
  }
  const user = await requireUser(request, { redirectTo: paths.recipe(recipeId) });
  if (readIntent(formData) !== "comment") return data({ error: "Unknown action.", text: "" }, { status: 400 });
  const typed = formData.get("text");
  const text = typeof typed === "string" ? typed : "";
  const outcome = await addComment({ actor: user, recipeId, text });
  if (!outcome.ok) {
    if (outcome.status === 404) throw new Response(outcome.message, { status: 404 });
    return data({ error: outcome.message, text }, { status: outcome.status });
  }
  const comment = outcome.value;
  if (isFetcherSubmission(formData)) return { comment };
  return redirect(`${paths.recipe(recipeId)}#comment-${comment.comment_id}`);
}

export default function RecipeRoute() {
  const { recipe, photo, comments, commentMax, saved, signedIn, canEdit, deletable, onShoppingList, serves: servesFromUrl, scale: scaleFromUrl, scaleAsked, shown, cooked, units } =
    useLoaderData<typeof loader>();
  // The amounts follow the address, not only the loader: a step or a multiplier clicked while the
  // page was still waking up may have reached the address as a client navigation, which does not
  // read the recipe again (shouldRevalidate below) — the page must still show what it names.
  const query = new URLSearchParams(useLocation().search);
  const servesInAddress = parseServes(query.get("serves")) ?? recipe.serves ?? 1;
  const scaleInAddress = recipe.serves === null ? query.get("scale") : null;
  const [serves, setServes] = useState(servesInAddress);
  useChangeEffect(servesInAddress, setServes);
  // The servings shown, as the steps below count from them (ahead of a render still to come).
  const servesNow = useRef(serves);
  servesNow.current = serves;
  // Without stated servings there is nothing to count people from: a multiplier scales instead.
  const [scaleText, setScaleText] = useState(scaleInAddress);
  useChangeEffect(scaleInAddress, setScaleText);
  const scaler = useScaler();
  // Amounts other than those the server scaled need the quantity reader, however they were asked for.
  const changed = serves !== servesFromUrl || scaleText !== scaleFromUrl;
  // After every commit, not on a change of dependencies (see useChangeEffect: React may skip those).
  useEffect(() => {
    if (changed && !scaler.tools) void scaler.load();
  });
  // A multiplier typed in the page is read once the reader has loaded (rescale waits for it).
  const asked = scaleText === scaleFromUrl ? scaleAsked : (scaler.tools?.parseScale(scaleText) ?? scaleAsked);
  const scale = typeof asked === "number" ? asked : 1;
  const factor = amountsFactor(recipe.serves, serves, asked);
  // Amounts changed in the page wait for the quantity reader (loaded on the first change).
  const rescale = (change: () => void) => void scaler.load().then(change);
  const returnTo = paths.recipe(recipe.recipe_id);
  const hasActions = signedIn || canEdit;
  return (
    <article className="recipe">
      <div className="recipe__hero">
        {/* As app/components/photo.tsx draws a photo, written out here: the page's script has no room for ~/lib/photos. */}
        <span className="photo-frame recipe__photo-frame">
          {photo.placeholder ? <img className="photo-frame__blur" src={photo.placeholder} alt="" aria-hidden="true" width={800} height={600} /> : null}
          <picture>
            {photo.avifSrcSet ? <source type="image/avif" srcSet={photo.avifSrcSet} sizes={photo.sizes} /> : null}
            <img
              className="recipe__photo"
              src={recipe.photo || RECIPE_PLACEHOLDER_IMAGE}
              srcSet={photo.srcSet}
              sizes={photo.sizes}
              alt={recipe.name}
              width={800}
              height={600}
              // The page's largest paint: fetched first.
              {...{ fetchpriority: "high" }}
            />
          </picture>
        </span>
        <div className="recipe__intro">
          <header className="recipe__header">
            <h1 className="recipe__name">{recipe.name}</h1>
            <p className="recipe__creator">
              Created by{" "}
              {recipe.creator ? <Link to={paths.profile(recipe.creator.id)}>{recipe.creator.username}</Link> : "Unknown User"}
            </p>
          </header>
          {hasActions ? (
            <div className="recipe__actions">
              {signedIn ? <SaveButton recipeId={recipe.recipe_id} saved={saved} returnTo={returnTo} look="button" /> : null}
              {canEdit ? (
                <Link to={paths.editor(recipe.recipe_id)} className="button button--ghost">
                  Edit Recipe
                </Link>
              ) : null}
            </div>
          ) : null}
          {recipe.description ? <p className="recipe__description">{recipe.description}</p> : null}
          {/* Facts the recipe does not have are left out, never shown as made-up values. */}
          {recipe.total_time || recipe.serves !== null ? (
            <dl className="recipe__facts">
              {recipe.total_time ? (
                <div>
                  <dt>Total Time</dt>
                  <dd>{recipe.total_time}</dd>
                </div>
              ) : null}
              {recipe.serves !== null ? (
                <div>
                  <dt>Serves</dt>
                  <dd>{serves}</dd>
                </div>
              ) : null}
            </dl>
          ) : null}
          {recipe.tags.length > 0 ? (
            <ul className="chips" aria-label="Tags">
              {recipe.tags.map((tag) => (
                <li key={tag} className="chip">
                  {tag}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      </div>
      <div className="recipe__body">
        <section className="recipe__section recipe__ingredients-block" aria-labelledby="ingredients-heading">
          <div className="recipe__ingredients-head">
            <h2 id="ingredients-heading">Ingredients</h2>
            {recipe.serves !== null ? (
              <ServesControl
                recipeId={recipe.recipe_id}
                serves={serves}
                onStep={(step) =>
                  // A step counts from the servings shown when it lands: clicks made while the
                  // quantity reader loads each add one, none is lost. The address follows (a
                  // reload or a shared link shows the same), keeping its #fragment.
                  rescale(() => {
                    const next = Math.min(MAX_SERVES, Math.max(1, servesNow.current + step));
                    servesNow.current = next;
                    setServes(next);
                    window.history.replaceState(window.history.state, "", `${paths.recipe(recipe.recipe_id)}?serves=${next}${window.location.hash}`);
                  })
                }
              />
            ) : (
              <ScaleControl
                recipeId={recipe.recipe_id}
                scale={scale}
                text={scaleText}
                invalid={asked === "invalid"}
                onChange={(text) => rescale(() => setScaleText(text))}
              />
            )}
            <UnitsControl recipeId={recipe.recipe_id} units={units} serves={recipe.serves === null ? null : serves} scale={recipe.serves === null && scale !== 1 ? scaleText : null} />
          </div>
          {recipe.ingredients_sec.map((section, sectionIndex) => (
            <div key={section._id} className="recipe__ingredients">
              <h3>For the {section.title}</h3>
              <ul>
                {section.ingredients.map((line, index) => (
                  <li key={index}>
                    {factor === shown.factor ? shown.sections[sectionIndex]![index] : (scaler.tools?.present(line, factor, units) ?? line)}
                  </li>
                ))}
              </ul>
            </div>
          ))}
          {signedIn ? (
            <AddToShoppingList
              recipeId={recipe.recipe_id}
              serves={recipe.serves === null ? null : serves}
              scale={recipe.serves === null && scale !== 1 ? scale : null}
              onList={onShoppingList}
            />
          ) : null}
        </section>
        <section className="recipe__section recipe__steps-block" aria-labelledby="steps-heading">
          <div className="recipe__steps-head">
            <h2 id="steps-heading">Instructions</h2>
            {recipe.steps.length > 0 ? (
              <Link
                to={`${paths.recipe(recipe.recipe_id)}/Cook${recipe.serves !== null ? `?serves=${serves}` : scale !== 1 && scaleText ? `?scale=${encodeURIComponent(scaleText)}` : ""}`}
                className="button button--ghost"
              >
                Cook mode
              </Link>
            ) : null}
          </div>
          <ol className="recipe__steps">
            {shown.steps.map((step, index) => (
              <li key={index}>{step}</li>
            ))}
          </ol>
        </section>
      </div>
      <CookedIt recipeId={recipe.recipe_id} {...cooked} />
      <Comments comments={comments} deletable={deletable} signedIn={signedIn} recipeId={recipe.recipe_id} hasPost={recipe.post_id !== null} commentMax={commentMax} />
    </article>
  );
}

/** How much the lines are multiplied by: the servings asked for over the recipe's, or the multiplier. */
function amountsFactor(recipeServes: number | null, serves: number, scale: number | null | "invalid"): number {
  if (recipeServes !== null) return serves / recipeServes;
  return typeof scale === "number" ? scale : 1;
}

type Rescaler = typeof import("~/lib/rescale");
let scalerLoading: Promise<Rescaler> | null = null;

/**
 * The quantity and number readers, loaded the first time someone changes the amounts (the page's
 * first lines come scaled from the server): they are most of a recipe page's own script, and most
 * visits never change the amounts.
 */
function useScaler(): { tools: Rescaler | null; load: () => Promise<Rescaler> } {
  const [tools, setTools] = useState<Rescaler | null>(null);
  const load = useCallback(() => {
    scalerLoading ??= import("~/lib/rescale");
    return scalerLoading.then((loaded) => {
      setTools(loaded);
      return loaded;
    });
  }, []);
  return { tools, load };
}

/** −/+ links (?serves=N) that work without JavaScript; with it, they rescale at once. */
function ServesControl({ recipeId, serves, onStep }: { recipeId: string; serves: number; onStep: (step: -1 | 1) => void }) {
  const link = (n: number, label: string, text: string) =>
    n < 1 || n > MAX_SERVES ? (
      <span className="serves-control__step is-disabled" aria-hidden="true">
        {text}
      </span>
    ) : (
      <Link
        to={`${paths.recipe(recipeId)}?serves=${n}`}
        className="serves-control__step"
        aria-label={label}
        preventScrollReset
        replace
        // Whenever this runs (hydration may not have finished: a click then is handled at once by
        // the script), the step is the script's; before the script, the link loads the page.
        onClick={(event) => {
          event.preventDefault();
          onStep(n > serves ? 1 : -1);
        }}
      >
        {text}
      </Link>
    );
  return (
    <div className="serves-control" role="group" aria-label="Servings">
      {link(serves - 1, "Fewer servings", "−")}
      <span aria-live="polite">
        {serves} {serves === 1 ? "serving" : "servings"}
      </span>
      {link(serves + 1, "More servings", "+")}
    </div>
  );
}

/**
 * ½× 1× 2× 3× links (?scale=N) and a box for any other multiplier (a GET form), for a recipe
 * without stated servings. Without JavaScript each is a page load; with it, the lines rescale at
 * once and the address follows. A multiplier it cannot read is said, and the recipe shown as written.
 */
function ScaleControl({
  recipeId,
  scale,
  text,
  invalid,
  onChange,
}: {
  recipeId: string;
  scale: number;
  /** The multiplier as the address writes it ("1/3", "1.5"), or null. */
  text: string | null;
  invalid: boolean;
  onChange: (text: string | null) => void;
}) {
  const go = (text: string | null) => {
    onChange(text);
    window.history.replaceState(window.history.state, "", text === null ? paths.recipe(recipeId) : `${paths.recipe(recipeId)}?scale=${encodeURIComponent(text)}`);
  };
  const errorId = `scale-error-${recipeId}`;
  return (
    <div className="scale-control">
      <div className="serves-control" role="group" aria-label="Multiplier">
        {SCALE_CHOICES.map((choice) => (
          <Link
            key={choice}
            to={choice === 1 ? paths.recipe(recipeId) : `${paths.recipe(recipeId)}?scale=${choice}`}
            className="scale-control__choice"
            aria-current={choice === scale && !invalid ? "true" : undefined}
            preventScrollReset
            replace
            onClick={(event) => {
              event.preventDefault();
              go(choice === 1 ? null : String(choice));
            }}
          >
            {SCALE_CHOICE_LABELS[choice]}
          </Link>
        ))}
      </div>
      <form
        method="get"
        action={paths.recipe(recipeId)}
        className="scale-control__other"
        onSubmit={(event) => {
          event.preventDefault();
          const text = String(new FormData(event.currentTarget).get("scale") ?? "").trim();
          go(text === "" ? null : text);
        }}
      >
        <label htmlFor={`scale-${recipeId}`}>Other</label>
        <input
          id={`scale-${recipeId}`}
          name="scale"
          inputMode="decimal"
          size={4}
          maxLength={12}
          placeholder="1.5"
          key={text ?? ""}
          defaultValue={invalid || !SCALE_CHOICES.includes(scale as (typeof SCALE_CHOICES)[number]) ? (text ?? "") : ""}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorId : undefined}
        />
        <button type="submit" className="button button--ghost button--small">
          Apply
        </button>
      </form>
      {invalid ? (
        <p className="field__error scale-control__error" id={errorId} role="alert">
          {SCALE_MESSAGE}
        </p>
      ) : null}
    </div>
  );
}

type CommentResult = { comment: CommentView } | { error: string; text: string };

function Comments({
  comments,
  deletable,
  signedIn,
  recipeId,
  hasPost,
  commentMax,
}: {
  comments: ListedComment[];
  /** Ids of the comments the viewer may delete. */
  deletable: string[];
  signedIn: boolean;
  recipeId: string;
  hasPost: boolean;
  commentMax: number;
}) {
  const fetcher = useFetcher<CommentResult>();
  const plainFailure = useActionData<typeof action>();
  const navigation = useNavigation();
  const failure =
    fetcher.state === "idle" && fetcher.data && "error" in fetcher.data ? fetcher.data : plainFailure && "error" in plainFailure ? plainFailure : null;
  // Shown while sending only; once the answer is in, the returned comment takes its place.
  const pendingText = fetcher.state === "submitting" ? fetcher.formData?.get("text") : undefined;
  // What was sent, read while the submission is in flight (sending, then reloading the page's
  // data): on a slow phone the answer may land before a render in the sending state.
  const inFlight = fetcher.state !== "idle" ? fetcher.formData?.get("text") : undefined;
  // A new successful comment clears the box, unless the next one has been typed meanwhile.
  const posted = useResultKey(fetcher.data && "comment" in fetcher.data ? fetcher.data : null);
  const sent = useRef("");
  if (typeof inFlight === "string") sent.current = inFlight;
  const sending = fetcher.state !== "idle" || navigation.state === "submitting";

  // A comment the server already returned to the fetcher but the loader has not re-read yet. Once
  // the loader has listed it, the loader's list is the truth: a comment deleted since stays gone.
  const listed = useRef(new Set<string>());
  for (const comment of comments) listed.current.add(comment.comment_id);
  const shown = [...comments];
  const returned = fetcher.data && "comment" in fetcher.data ? fetcher.data.comment : null;
  if (returned && !listed.current.has(returned.comment_id)) shown.push(returned);
  const location = useLocation();
  const returnTo = `${location.pathname}${location.search}#comments`;

  return (
    <section className="recipe__section comments" id="comments" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments ({shown.length + (typeof pendingText === "string" ? 1 : 0)})</h2>
      <ol className="comments__list">
        {shown.map((comment) => (
          <CommentItem
            key={comment.comment_id}
            comment={comment}
            // One's own comment, just returned by the fetcher, is one's to delete.
            deleteReturnTo={deletable.includes(comment.comment_id) || comment === returned ? returnTo : undefined}
          />
        ))}
        {typeof pendingText === "string" ? (
          <li className="comment comment--pending" aria-busy="true">
            <Avatar src={DEFAULT_PROFILE_IMAGE} size={32} />
            <div>
              <p className="comment__text">{pendingText.trim()}</p>
            </div>
          </li>
        ) : null}
      </ol>
      {!signedIn ? (
        <p className="notice">
          <Link to={paths.login(`${paths.recipe(recipeId)}#comments`)}>Please log in to add comments.</Link>
        </p>
      ) : hasPost ? (
        <FetcherForm fetcher={fetcher} action={paths.recipe(recipeId)} className="comment-form" noValidate preventScrollReset>
          <InteractionFields redirectTo={paths.recipe(recipeId)} />
          <CommentBox posted={posted} sent={sent} initial={failure?.text ?? ""} invalid={failure !== null} sending={sending} max={commentMax} />
          {failure ? (
            <p className="field__error" id="comment-error" role="alert">
              {failure.error}
            </p>
          ) : null}
        </FetcherForm>
      ) : null}
    </section>
  );
}

/**
 * The comment text and its Post button. With JavaScript the button stays disabled while the text
 * is empty or only spaces, and while the comment is sending; without it the button always works
 * and the server refuses a blank comment with its message. Emptied when a comment is posted
 * (`posted` counts them) if it still holds the text sent: what the reader typed while it was
 * sending stays.
 */
function CommentBox({
  posted,
  sent,
  initial,
  invalid,
  sending,
  max,
}: {
  posted: number;
  sent: RefObject<string>;
  initial: string;
  invalid: boolean;
  sending: boolean;
  max: number;
}) {
  const hydrated = useHydrated();
  const [hasText, setHasText] = useState(initial.trim() !== "");
  // Text typed before the page hydrated is in the box but not in the state: read it once hydrated,
  // or the button would turn disabled under a comment that is there.
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (box.current) setHasText(box.current.value.trim() !== "");
  }, []);
  useChangeEffect(posted, () => {
    if (!box.current || box.current.value.trim() !== sent.current?.trim()) return;
    box.current.value = "";
    setHasText(false);
  });
  return (
    <>
      <label htmlFor="comment-text" className="visually-hidden">
        Comment
      </label>
      <textarea
        id="comment-text"
        ref={box}
        name="text"
        rows={2}
        placeholder="Add a comment..."
        maxLength={max}
        defaultValue={initial}
        onChange={(event) => setHasText(event.currentTarget.value.trim() !== "")}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? "comment-error" : undefined}
      />
      <button type="submit" name="intent" value="comment" className="button" disabled={sending || (hydrated && !hasText)}>
        {sending && hydrated ? "Posting..." : "Post"}
      </button>
    </>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <ErrorPage status={404} message="Recipe not found." />;
  throw error;
}

/**
 * Puts the ingredients on the shopping list at the servings or multiplier shown (docs/rules.md#shopping-list);
 * a recipe already there is updated. A plain post comes back here with a notice; with JavaScript
 * the button says so in place.
 */
function AddToShoppingList({ recipeId, serves, scale, onList }: { recipeId: string; serves: number | null; scale: number | null; onList: boolean }) {
  const fetcher = useFetcher<{ ok: true } | { error: string }>();
  const here =
    serves !== null ? `${paths.recipe(recipeId)}?serves=${serves}` : scale !== null ? `${paths.recipe(recipeId)}?scale=${scale}` : paths.recipe(recipeId);
  const added = fetcher.state === "idle" && fetcher.data && "ok" in fetcher.data;
  const error = fetcherError(fetcher);
  return (
    <FetcherForm fetcher={fetcher} action={paths.shoppingList()} className="recipe__shopping" preventScrollReset>
      <InteractionFields redirectTo={withNotice(here, "shopping-added")} />
      <input type="hidden" name="recipeId" value={recipeId} />
      {serves === null ? null : <input type="hidden" name="serves" value={serves} />}
      {scale === null ? null : <input type="hidden" name="scale" value={scale} />}
      <button type="submit" name="intent" value="add" className="button button--ghost" disabled={fetcher.state !== "idle"}>
        {fetcher.state !== "idle" ? "Adding..." : onList || added ? "Update shopping list" : "Add to shopping list"}
      </button>
      {added ? (
        <p role="status" className="recipe__shopping-done">
          Added to your <Link to={paths.shoppingList()}>shopping list</Link>.
        </p>
      ) : null}
      <InlineError message={error} />
    </FetcherForm>
  );
}

/**
 * Metric / US (docs/rules.md#units): a plain form that remembers the choice in a cookie and shows
 * the page again at the same amounts; the server writes the lines and the steps' temperatures.
 */
function UnitsControl({ recipeId, units, serves, scale }: { recipeId: string; units: UnitSystem | null; serves: number | null; scale: string | null }) {
  const failure = useActionData<typeof action>();
  const error = failure && "unitsError" in failure ? failure.unitsError : null;
  return (
    <Form method="post" action={paths.recipe(recipeId)} className="units-control" preventScrollReset>
      <input type="hidden" name="intent" value="units" />
      {serves === null ? null : <input type="hidden" name="serves" value={serves} />}
      {scale === null ? null : <input type="hidden" name="scale" value={scale} />}
      <span className="units-control__label" id="units-label">
        Units
      </span>
      <span role="group" aria-labelledby="units-label" className="units-control__choices">
        <button type="submit" name="units" value="metric" className="units-control__choice" aria-pressed={units === "metric"}>
          Metric
        </button>
        <button type="submit" name="units" value="us" className="units-control__choice" aria-pressed={units === "us"}>
          US
        </button>
      </span>
      {error ? (
        <p className="field__error units-control__error" role="alert">
          {error}
        </p>
      ) : null}
    </Form>
  );
}
