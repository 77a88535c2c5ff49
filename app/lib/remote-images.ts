/**
 * A picture from another server as a page may show it: only over https (what the pages'
 * Content-Security-Policy admits besides our own), else none and the page shows its placeholder.
 */
export function shownRemoteImage(url: string | null | undefined): string | null {
  return url && url.startsWith("https://") ? url : null;
}
