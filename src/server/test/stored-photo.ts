import { photos } from '../db/schema';
import type { TestApp } from './harness';

/**
 * A photo row whose files are `bytes` (one stored file as original, preview and thumbnail), written
 * straight to the database as an upload leaves it, for tests that need photos without the upload path.
 */
export async function insertStoredPhoto(
  app: TestApp['app'],
  userId: string,
  name: string,
  bytes: Buffer,
): Promise<string> {
  const key = await app.ctx.blobs.put(bytes);
  const [row] = await app.ctx.db
    .insert(photos)
    .values({
      userId,
      name,
      mime: 'image/jpeg',
      size: bytes.length,
      width: 40,
      height: 30,
      originalKey: key,
      previewKey: key,
      thumbnailKey: key,
    })
    .returning({ id: photos.id });
  return row!.id;
}
