import type { LoaderFunctionArgs } from "@remix-run/node";

import { loadUploadPage } from "~/server/pages/upload-page.server";

// Stored images at /uploads/<sha256>.webp (and its copies .card.webp, .w320.webp …, and their
// AVIF twins .avif, .card.avif, .w320.avif …). The name is the hash of the
// content, so the answer never changes: browsers and proxies may keep it for a year. The bytes
// come from the image store, the uploads folder or an S3 bucket; with S3_PUBLIC_URL the browser
// is sent there instead (a CDN, or the bucket itself). The answer is app/server/pages/upload-page.server.ts.
export const loader = ({ params }: LoaderFunctionArgs) => loadUploadPage(params.file ?? "");
