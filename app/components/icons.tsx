// Small inline icons for the toggles (a liked heart, a saved bookmark fill in): no icon font or
// emoji font needed, and they inherit the text colour. They share the navigation icons' grid and
// strokes (24 units, 2-unit round strokes); those are CSS masks (`.nav-icon` in global.css), so
// the JavaScript carries only these three.
const paths = {
  heart: "M12 21s-7.5-4.6-9.6-9.2C.9 8.4 3 5 6.4 5c2 0 3.4 1.1 4.1 2.3h3C14.2 6.1 15.6 5 17.6 5 21 5 23.1 8.4 21.6 11.8 19.5 16.4 12 21 12 21z",
  comment: "M4 4h16a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H9l-5 4v-4H4a1 1 0 0 1-1-1V5a1 1 0 0 1 1-1z",
  bookmark: "M6 3h12a1 1 0 0 1 1 1v17l-7-4.5L5 21V4a1 1 0 0 1 1-1z",
} as const;

export function Icon({ name, filled = false }: { name: keyof typeof paths; filled?: boolean }) {
  return (
    <svg className="icon" width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={paths[name]} fill={filled ? "currentColor" : "none"} stroke="currentColor" strokeWidth="2" strokeLinejoin="round" />
    </svg>
  );
}

/** The navigation's icons (drawn by CSS). */
export type NavIconName = "home" | "search" | "create" | "bookmark" | "profile" | "admin" | "info" | "bell" | "cart";

export function NavIcon({ name }: { name: NavIconName }) {
  return <span className={`nav-icon nav-icon--${name}`} aria-hidden="true" />;
}
