// Writes .br and .gz beside every compressible file of the built client (dist/web), so the server
// sends them as they are (@fastify/static preCompressed) instead of compressing on every request.
// Brotli at its highest quality: done once per build, it costs nothing per request.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/;
/** Below this, the headers cost more than compression saves. */
const MIN_BYTES = 1024;

async function* files(dir) {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(p);
    else if (COMPRESSIBLE.test(entry.name)) yield p;
  }
}

export async function precompressWeb(root = 'dist/web') {
  const exists = await stat(root).catch(() => null);
  if (!exists) return { files: 0 };
  let n = 0;
  for await (const file of files(root)) {
    const bytes = await readFile(file);
    if (bytes.length < MIN_BYTES) continue;
    const br = brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    });
    const gz = gzipSync(bytes, { level: 9 });
    if (br.length < bytes.length) await writeFile(`${file}.br`, br);
    if (gz.length < bytes.length) await writeFile(`${file}.gz`, gz);
    n += 1;
  }
  return { files: n };
}

if (import.meta.url === `file://${process.argv[1]}`) await precompressWeb(process.argv[2]);
