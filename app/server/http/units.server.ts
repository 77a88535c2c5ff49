import { parse } from "cookie";

import { parseUnitSystem, type UnitSystem } from "~/lib/units";

// The Metric / US choice of the recipe pages (docs/rules.md#units), remembered for a year. A
// `recipals_` cookie, so a request carrying it is personal (cookies.server.ts): its pages are
// rendered in its units and never shared through the page cache.

export const UNITS_COOKIE = "recipals_units";
const UNITS_MAX_AGE_S = 365 * 24 * 60 * 60;

export const UNITS_MESSAGE = "Choose Metric or US.";

/** The units the request's cookie chose; null (as written) without one or for a value we never set. */
export function unitsOf(cookieHeader: string | null | undefined): UnitSystem | null {
  if (!cookieHeader || !cookieHeader.includes(UNITS_COOKIE)) return null;
  return parseUnitSystem(parse(cookieHeader)[UNITS_COOKIE]);
}

/** The Set-Cookie that remembers `units`. */
export function unitsCookie(units: UnitSystem): string {
  return `${UNITS_COOKIE}=${units}; Path=/; Max-Age=${UNITS_MAX_AGE_S}; HttpOnly; SameSite=Lax`;
}
