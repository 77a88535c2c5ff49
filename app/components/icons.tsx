// One set of small inline icons (24-unit grid, 2-unit round strokes): no icon font or emoji font
// needed, and they inherit the text colour. Filled variants (a liked heart, a saved bookmark, the
// current navigation entry) fill the same outline.
const paths = {
  heart: "M12 21s-7.5-4.6-9.6-9.2C.9 8.4 3 5 6.4 5c2 0 3.4 1.1 4.1 2.3h3C14.2 6.1 15.6 5 17.6 5 21 5 23.1 8.4 21.6 11.8 19.5 16.4 12 21 12 21z",
  comment: "M4 4h16a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H9l-5 4v-4H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z",
  bookmark: "M6 3h12a1 1 0 0 1 1 1v17l-7-4.5L5 21V4a1 1 0 0 1 1-1z",
  home: "M3 10.5 12 3l9 7.5V20a1 1 0 0 1-1 1h-5v-6h-6v6H4a1 1 0 0 1-1-1z",
  search: "M10.5 4a6.5 6.5 0 1 1 0 13 6.5 6.5 0 0 1 0-13zM15.5 15.5 21 21",
  create: "M5 3h14a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zM12 8v8M8 12h8",
  profile: "M12 3a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9zM3.5 21c.8-4.3 4.2-6.5 8.5-6.5s7.7 2.2 8.5 6.5z",
  admin: "M12 2.5 20 6v6c0 5-3.5 8.2-8 9.5-4.5-1.3-8-4.5-8-9.5V6zM8.5 12l2.5 2.5 4.5-5",
  info: "M12 3a9 9 0 1 1 0 18 9 9 0 0 1 0-18zM12 11v6M12 7.5v.5",
} as const;

export type IconName = keyof typeof paths;

/** Outline shapes whose fill would hide their inner strokes (a plus in a square, a tick in a shield). */
const OUTLINE_ONLY = new Set<IconName>(["search", "create", "admin", "info"]);

export function Icon({ name, filled = false, size = 20 }: { name: IconName; filled?: boolean; size?: number }) {
  const fill = filled && !OUTLINE_ONLY.has(name);
  return (
    <svg className="icon" width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        d={paths[name]}
        fill={fill ? "currentColor" : "none"}
        stroke="currentColor"
        strokeWidth={filled && !fill ? 2.5 : 2}
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
