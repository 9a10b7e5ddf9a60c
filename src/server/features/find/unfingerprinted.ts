import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { photos } from '../../db/schema';
import { signUp, type TestApp } from '../../test/harness';

/**
 * Test fixture: a new user with three photos of their own and no fingerprint yet (inserted as rows,
 * so no background work makes one meanwhile: as photos stored before the feature, or whose
 * fingerprint is still to come). `gone` is the one a test deletes.
 */
export async function unfingerprintedLibrary(t: TestApp) {
  const { cookie, user } = await signUp(t.app);
  const ids: string[] = [];
  for (const colour of ['#b03a2a', '#2ab03a', '#3a2ab0']) {
    const bytes = await sharp({ create: { width: 96, height: 64, channels: 3, background: colour } })
      .jpeg()
      .toBuffer();
    const key = await t.app.ctx.blobs.put(bytes);
    const [row] = await t.database.db
      .insert(photos)
      .values({
        userId: user.id,
        name: colour,
        mime: 'image/jpeg',
        size: 1,
        width: 96,
        height: 64,
        originalKey: key,
        previewKey: key,
        thumbnailKey: key,
      })
      .returning({ id: photos.id });
    ids.push(row!.id);
  }
  const result = (await t.database.db.execute(
    sql`select thumbnail_key as key from photos where id = ${ids[1]}`,
  )) as unknown as { rows: Array<{ key: string }> };
  return { cookie, ids, gone: { id: ids[1]!, thumbnailKey: result.rows[0]!.key } };
}
