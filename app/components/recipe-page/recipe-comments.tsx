// A recipe page's comments: the list (one's own and, for the recipe's owner, others' deletable)
// and the box. Posting works as a plain form; with JavaScript a fetcher shows the comment at once
// and keeps the box for the next one (docs/rules.md#likes-saves-comments).
import { useActionData, useFetcher, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState, type RefObject } from "react";

import { Avatar } from "~/components/avatar";
import { CommentItem, type ListedComment } from "~/components/comment-item";
import { FetcherForm } from "~/components/fetcher-form";
import { InteractionFields } from "~/components/interaction-fields";
import { Link } from "~/components/link";
import { useChangeEffect, useHydrated, useResultKey } from "~/lib/hooks";
import { DEFAULT_PROFILE_IMAGE, paths } from "~/lib/paths";
import type { RecipePageActionData } from "~/server/pages/recipe-page.server";
import type { CommentView } from "~/server/queries/comments.server";

type CommentResult = { comment: CommentView } | { error: string; text: string };

export function RecipeComments({
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
  const plainFailure = useActionData<RecipePageActionData>();
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
