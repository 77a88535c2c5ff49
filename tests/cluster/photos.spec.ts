import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import sharp from "sharp";

import { createRecipeInEditor, directUrl, expect, getJson, newUser, other, signIn, test, uniqueName, type ClusterState } from "../support/cluster-fixtures";

// 3. A photo uploaded through one server is served by the other: the recipe editor's photo goes
// in through the balancer, and the other server, asked directly on its own port, answers the same
// bytes for the main image and its card variant. With CLUSTER_IMAGES=s3 the files must also be
// in the bucket (so they are not merely on a disk both servers happen to share).

async function bucketHas(cluster: ClusterState, key: string): Promise<boolean> {
  const s3 = cluster.s3!;
  const client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
  });
  try {
    await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    return true;
  } catch {
    return false;
  } finally {
    client.destroy();
  }
}

test("a photo uploaded through one server is served by the other", async ({ page, cluster }) => {
  const user = await newUser(cluster, "photo");
  await signIn(page, user, cluster);
  const photo = await sharp({ create: { width: 1200, height: 900, channels: 3, background: "#0e7490" } })
    .jpeg({ quality: 90 })
    .toBuffer();
  const { recipeId, savedOn } = await createRecipeInEditor(page, cluster, { name: uniqueName("Photo"), photo });
  expect(savedOn, "nginx names the server that took the upload").not.toBeNull();

  const recipe = await getJson<{ photo: string }>(`${cluster.url}/api/recipes/${recipeId}`);
  const main = new URL(recipe.photo, cluster.url).pathname;
  expect(main).toMatch(/^\/uploads\/[0-9a-f]{64}\.webp$/);
  const card = main.replace(/\.webp$/, ".card.webp");

  const reader = other(savedOn!);
  for (const file of [main, card]) {
    const fromReader = await fetch(directUrl(cluster, reader, file));
    expect(fromReader.status, `${file} from server ${reader}, which did not take the upload`).toBe(200);
    expect(fromReader.headers.get("content-type")).toBe("image/webp");
    const bytes = Buffer.from(await fromReader.arrayBuffer());
    expect((await sharp(bytes).metadata()).format).toBe("webp");
    const fromWriter = await fetch(directUrl(cluster, savedOn!, file));
    expect(fromWriter.status, `${file} from server ${savedOn}`).toBe(200);
    expect(Buffer.from(await fromWriter.arrayBuffer()).equals(bytes), "both servers answer the same bytes").toBe(true);
    if (cluster.images === "s3") expect(await bucketHas(cluster, file.slice("/uploads/".length)), `${file} is in the bucket`).toBe(true);
  }

  // And the recipe page, through the balancer, shows it.
  await page.goto(`/ReciPals/Recipes/${recipeId}`);
  const img = page.locator(`img[src="${main}"], img[srcset*="${main.slice("/uploads/".length)}"]`).first();
  await expect(img).toBeVisible();
});
