// "Create" (/ReciPals/Create) is not a fixed link (docs/rules.md#navigation): every click mints a
// fresh recipe id, which opens the editor in create mode. Visitors are sent to Login with the reason.
//
// It is also the phone's share target (docs/rules.md#import-by-link): a shared page's link (the
// `url` parameter, or the first link in `text`) goes on to the editor's `Import from link`. A
// share with no usable link simply opens an empty editor.
import crypto from "node:crypto";

import { redirect } from "@remix-run/node";

import { paths } from "~/lib/paths";
import { getUserId } from "~/server/auth/session.server";
import { IMPORT_LINK_PARAM, SHARE_PARAMS, sharedLink } from "~/server/import/share.server";

/** A share longer than this is sent through sign-in as its link alone, so the Login URL stays short. */
const MAX_RETURN_QUERY = 2_048;

/** A fresh recipe's editor (with the shared link, if any), or Login for a visitor. */
export async function loadCreatePage(request: Request) {
  const url = new URL(request.url);
  const link = sharedLink(url.searchParams);
  const userId = await getUserId(request);
  if (!userId) {
    // After sign-in the visitor comes back to this same share, and so to the editor with its link.
    let query = url.search;
    if (query.length > MAX_RETURN_QUERY) query = link ? `?${new URLSearchParams({ [SHARE_PARAMS.url]: link })}` : "";
    return redirect(`${paths.login(`${paths.create()}${query}`)}&reason=create`);
  }
  const editor = paths.editor(crypto.randomUUID());
  return redirect(link ? `${editor}?${new URLSearchParams({ [IMPORT_LINK_PARAM]: link })}` : editor);
}
