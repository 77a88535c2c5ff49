import { requestPasswordReset, resetPassword } from "../services/account-mail-service.server";
import { startSession } from "../auth/session.server";
import { clientAddress } from "../http/ip.server";
import { invalid, json, readJsonObject, type ApiArgs } from "../http/api.server";
import { unwrap } from "./outcome-api.server";

// "Forgot password?" over the API (docs/rules.md#account-email), on the same rules as the pages.

/** POST /api/users/password-reset `{login}`: always 202 with the same words, whether or not the account exists. */
export async function requestReset({ request, context }: ApiArgs): Promise<Response> {
  const body = await readJsonObject(request);
  const { message } = unwrap(await requestPasswordReset({ login: body.login, from: clientAddress(context) }));
  return json({ message }, { status: 202 });
}

/** POST /api/users/password-reset/confirm `{token, password}`: the new password, every old session ended, this one signed in. */
export async function confirmReset({ request }: ApiArgs): Promise<Response> {
  const body = await readJsonObject(request);
  if (typeof body.token !== "string" || body.token === "") throw invalid({ token: "Send the token from the link." });
  const { userId } = unwrap(await resetPassword({ token: body.token, password: body.password, verifyPassword: body.password }));
  return json({ ok: true }, { headers: { "Set-Cookie": await startSession(request, userId) } });
}
