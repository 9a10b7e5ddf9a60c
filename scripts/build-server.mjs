// Bundles the server's own code into dist/server; npm packages stay external and load from node_modules.
import { build } from 'esbuild';
import { precompressWeb } from './precompress-web.mjs';

await build({
  // The vision thread is its own entry: node:worker_threads loads it from dist/server/vision-thread.js.
  entryPoints: [
    { in: 'src/server/main.ts', out: 'main' },
    { in: 'src/server/features/analysis/vision/thread.ts', out: 'vision-thread' },
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
