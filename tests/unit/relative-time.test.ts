import { describe, expect, it } from "vitest";

import { exactTime, relativeTime } from "~/lib/relative-time";

// How long ago, as the feed, comments and notifications say it (app/lib/relative-time.ts).

const now = Date.parse("2026-11-29T15:00:00Z");

describe("relative times", () => {
  it("counts minutes, hours, days and weeks, then gives the date (with the year only when it is another)", () => {
    expect(relativeTime("2026-11-29T14:59:30Z", now)).toBe("just now");
    expect(relativeTime("2026-11-29T14:55:00Z", now)).toBe("5 min");
    expect(relativeTime("2026-11-29T13:00:00Z", now)).toBe("2 h");
    expect(relativeTime("2026-11-26T15:00:00Z", now)).toBe("3 d");
    expect(relativeTime("2026-11-15T15:00:00Z", now)).toBe("2 w");
    expect(relativeTime("2026-05-28T09:00:00Z", now)).toBe("May 28");
    expect(relativeTime("2025-05-28T09:00:00Z", now)).toBe("May 28, 2025");
  });

  it("counts a date without a time in days: today, yesterday, 3 d", () => {
    expect(relativeTime("2026-11-29", now)).toBe("today");
    expect(relativeTime("2026-11-28", now)).toBe("yesterday");
    expect(relativeTime("2026-11-26", now)).toBe("3 d");
    expect(relativeTime("2025-05-28", now)).toBe("May 28, 2025");
  });

  it("gives the exact date for hover and screen readers, and leaves text it cannot read as it is", () => {
    expect(exactTime("2026-11-29T14:05:00Z")).toBe("Nov 29, 2026, 14:05 UTC");
    expect(exactTime("2025-05-28")).toBe("May 28, 2025");
    expect(relativeTime("not a date", now)).toBe("not a date");
    expect(exactTime("not a date")).toBe("not a date");
  });
});
