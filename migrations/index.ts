import type { Migration, MigrationProvider } from "kysely";

import * as init from "./20261121T0000-init";
import * as search from "./20261121T0100-search";
import * as signInAttempts from "./20261121T0200-sign-in-attempts";
import * as feedShuffle from "./20261121T0300-feed-shuffle";
import * as rateEvents from "./20261124T0000-rate-events";
import * as changeNotices from "./20261124T0100-change-notices";
import * as cacheScopes from "./20261125T0000-cache-scopes";
import * as notificationsShopping from "./20261126T0000-notifications-shopping";
import * as shoppingScale from "./20261127T0000-shopping-scale";
import * as sessionKeys from "./20261127T0100-session-keys";
import * as pendingUploads from "./20261127T0200-pending-uploads";
import * as blocksMutes from "./20261128T0000-blocks-mutes";
import * as reports from "./20261128T0100-reports";
import * as writersSideBySide from "./20261129T0000-writers-side-by-side";
import * as cooks from "./20261130T0000-cooks";
import * as reportCooks from "./20261201T0000-report-cooks";
import * as cookPhotosUploaded from "./20261201T0100-cook-photos-uploaded";
import * as accountEmail from "./20261202T0000-account-email";
import * as federation from "./20261203T0000-federation";
import * as federationSocial from "./20261204T0000-federation-social";
import * as reportRemote from "./20261205T0000-report-remote";

// Static imports, not FileMigrationProvider: Node 20 cannot load .ts migrations at run
// time, while this module is compiled into the server build, the seed and the tests alike.
const migrations: Record<string, Migration> = {
  "20261121T0000-init": init,
  "20261121T0100-search": search,
  "20261121T0200-sign-in-attempts": signInAttempts,
  "20261121T0300-feed-shuffle": feedShuffle,
  "20261124T0000-rate-events": rateEvents,
  "20261124T0100-change-notices": changeNotices,
  "20261125T0000-cache-scopes": cacheScopes,
  "20261126T0000-notifications-shopping": notificationsShopping,
  "20261127T0000-shopping-scale": shoppingScale,
  "20261127T0100-session-keys": sessionKeys,
  "20261127T0200-pending-uploads": pendingUploads,
  "20261128T0000-blocks-mutes": blocksMutes,
  "20261128T0100-reports": reports,
  "20261129T0000-writers-side-by-side": writersSideBySide,
  "20261130T0000-cooks": cooks,
  "20261201T0000-report-cooks": reportCooks,
  "20261201T0100-cook-photos-uploaded": cookPhotosUploaded,
  "20261202T0000-account-email": accountEmail,
  "20261203T0000-federation": federation,
  "20261204T0000-federation-social": federationSocial,
  "20261205T0000-report-remote": reportRemote,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
