// Bundles the server's own code into dist/server; npm packages stay external and load from node_modules.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { BUILD_STAMP, buildInputsHash } from './build-inputs.mjs';
import { precompressWeb } from './precompress-web.mjs';

await build({
  // The vision, filter, HEIC and embedded database threads are their own entries: node:worker_threads
  // loads them from dist/server/vision-thread.js, filter-thread.js, heic-thread.js and pglite-thread.js.
  entryPoints: [
    { in: 'src/server/main.ts', out: 'main' },
    { in: 'src/server/features/analysis/vision/thread.ts', out: 'vision-thread' },
    { in: 'src/server/features/filters/filter-thread.ts', out: 'filter-thread' },
    { in: 'src/server/lib/heic-thread.ts', out: 'heic-thread' },
    { in: 'src/server/db/pglite-thread.ts', out: 'pglite-thread' },
  ],
  outdir: 'dist/server',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

// `vite build` ran first: pre-compress the client's text files (.br, .gz) for the static server.
await precompressWeb();

// Last, so an interrupted build leaves no stamp: `npm start` then builds again instead of serving it.
writeFileSync(BUILD_STAMP, `${buildInputsHash()}\n`);
