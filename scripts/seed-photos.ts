/**
 * Inserts N photo rows for one user, all sharing the blobs of a few real images, for measuring the
 * gallery at library sizes such as 100,000:
 *
 *   npx tsx scripts/seed-photos.ts <email> [count=100000]
 *
 * Uses the same configuration as the server (DATA_DIR / DATABASE_URL / BLOB_DIR). Rows are newest
 * first in the order inserted, one second apart, and named 'Seeded photo N'.
 */
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { loadConfig } from '../src/server/config.js';
import { openDatabase } from '../src/server/db/client.js';
import { photos, users } from '../src/server/db/schema.js';
import { makeDerivatives } from '../src/server/features/photos/image-pipeline.js';
import { LocalBlobStore } from '../src/server/storage/blob-store.js';

async function main() {
  const [email, countArg] = process.argv.slice(2);
  if (!email) throw new Error('usage: npx tsx scripts/seed-photos.ts <email> [count]');
  const count = Number(countArg ?? 100_000);
  const config = loadConfig();
  sharp.concurrency(config.imageThreads);
  const database = await openDatabase(config);
  const blobs = new LocalBlobStore(config.blobDir);
  try {
    const [user] = await database.db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()));
    if (!user) throw new Error(`no user with email ${email}: register first`);
    const colours = ['#c0392b', '#2980b9', '#27ae60', '#8e44ad', '#f39c12'];
    const sources = await Promise.all(
      colours.map(async (background) => {
        const original = await sharp({ create: { width: 1600, height: 1200, channels: 3, background } })
          .jpeg()
          .toBuffer();
        const d = await makeDerivatives(original);
        const [originalKey, previewKey, thumbnailKey] = await Promise.all([
          blobs.put(original),
          blobs.put(d.preview),
          blobs.put(d.thumbnail),
        ]);
        return { d, size: original.length, originalKey, previewKey, thumbnailKey };
      }),
    );
    const start = Date.now();
    const BATCH = 1000;
    for (let done = 0; done < count; done += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, count - done) }, (_, j) => {
        const i = done + j;
        const s = sources[i % sources.length]!;
        return {
          userId: user.id,
          name: `Seeded photo ${i + 1}`,
          mime: 'image/jpeg',
          size: s.size,
          width: s.d.width,
          height: s.d.height,
          originalKey: s.originalKey,
          previewKey: s.previewKey,
          thumbnailKey: s.thumbnailKey,
          thumbhash: s.d.thumbhash,
          uploadedAt: new Date(start - i * 1000),
        };
      });
      await database.db.insert(photos).values(rows);
      process.stdout.write(`\r${done + rows.length} / ${count}`);
    }
    process.stdout.write('\n');
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
