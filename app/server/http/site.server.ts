import packageJson from "../../../package.json";

import { env } from "../env.server";

/**
 * Where this project's source can be read: RECIPALS_SOURCE_URL, else the `repository` of
 * package.json (`https://…`, `git+https://….git` or `github:owner/name`), else nothing. The
 * Info page links it only when one is configured: it must never show an address nobody published.
 */
export function projectSourceUrl(
  configured: string | undefined = env.RECIPALS_SOURCE_URL,
  repository: unknown = (packageJson as { repository?: unknown }).repository,
): string | null {
  return webUrl(configured) ?? webUrl(repositoryText(repository));
}

function repositoryText(repository: unknown): string | undefined {
  if (typeof repository === "string") return repository;
  if (repository && typeof repository === "object" && typeof (repository as { url?: unknown }).url === "string") return (repository as { url: string }).url;
  return undefined;
}

function webUrl(text: string | undefined): string | null {
  if (!text) return null;
  const shorthand = /^github:([\w.-]+\/[\w.-]+)$/.exec(text.trim());
  const candidate = shorthand ? `https://github.com/${shorthand[1]}` : text.trim().replace(/^git\+/, "").replace(/\.git$/, "");
  try {
    const url = new URL(candidate);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

/**
 * The site's own address, for every absolute link a page or feed carries (feeds, share previews,
 * structured data): PUBLIC_URL when set, so no request can choose it with its Host header (the
 * feed is cached by others for minutes); otherwise the address the request came to.
 */
export function siteOrigin(request: Request, configured: string | undefined = env.PUBLIC_URL): string {
  return configured ?? new URL(request.url).origin;
}
