import { z } from "zod";

import { invalid, json, param, readJsonObject, requireApiUser, type ApiArgs } from "../http/api.server";
import { listBlocked, listMuted, type RelatedPerson } from "../queries/visibility.server";
import { setBlock, setMute } from "../services/people-service.server";
import { unwrap } from "./outcome-api.server";
import { issuesToErrors } from "./validation-api.server";

// /api/blocks and /api/mutes (docs/rules.md#blocking-and-muting): the caller's own lists, never
// anyone else's. GET lists; POST {user_id} adds; DELETE /{id} removes. Each answers the list as it
// is afterwards; the same services as the profile's buttons decide.

type Relation = "blocks" | "mutes";

const TargetSchema = z.object({ user_id: z.string({ error: "user_id is required." }).min(1, "user_id is required.").max(200) }).strict();

const toApiPerson = (person: RelatedPerson) => ({ _id: person.id, username: person.username, name: person.name, profile: person.profile });

async function listOf(relation: Relation, userId: string) {
  return (await (relation === "blocks" ? listBlocked(userId) : listMuted(userId))).map(toApiPerson);
}

async function change(relation: Relation, args: ApiArgs, targetId: string, on: boolean): Promise<Response> {
  const actor = await requireApiUser(args.request);
  if (relation === "blocks") unwrap(await setBlock({ actor, targetId, blocked: on }));
  else unwrap(await setMute({ actor, targetId, muted: on }));
  return json(await listOf(relation, actor.id), { status: on ? 201 : 200 });
}

/** GET /api/blocks, /api/mutes: whom the caller blocked / muted, most recent first. */
export async function listRelated(relation: Relation, args: ApiArgs): Promise<Response> {
  const actor = await requireApiUser(args.request);
  return json(await listOf(relation, actor.id));
}

/** POST /api/blocks, /api/mutes {user_id}. */
export async function addRelated(relation: Relation, args: ApiArgs): Promise<Response> {
  await requireApiUser(args.request);
  const parsed = TargetSchema.safeParse(await readJsonObject(args.request));
  if (!parsed.success) throw invalid(issuesToErrors(parsed.error));
  return change(relation, args, parsed.data.user_id, true);
}

/** DELETE /api/blocks/{id}, /api/mutes/{id}. */
export function removeRelated(relation: Relation, args: ApiArgs): Promise<Response> {
  return change(relation, args, param(args, "id"), false);
}
