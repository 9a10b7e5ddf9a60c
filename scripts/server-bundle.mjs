// How the server is bundled into dist/server: its own code bundled, npm packages external (loaded
// from node_modules). Shared by scripts/build-server.mjs and the test that checks the main bundle.

/** Packages only worker threads need; the HTTP process must not load them (heap, start-up time). */
export const THREAD_ONLY_PACKAGES = /^(@tensorflow\/|@vladmandic\/human|nsfwjs|onnxruntime-node)/;

/**
 * The analysis feature's front door also serves scripts and benchmarks (the vision engine, the
 * embedder), and its modules import tfjs at the top. Declared free of side effects, esbuild drops
 * whatever the HTTP process does not use, with those imports.
 */
const analysisWithoutSideEffects = {
  name: 'analysis-without-side-effects',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.inner || !args.resolveDir.includes('/src/server/features/analysis/')) return undefined;
      const r = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { inner: true },
      });
      if (r.errors.length) return undefined;
      return { path: r.path, external: r.external, sideEffects: false };
    });
  },
};

const common = {
  outdir: 'dist/server',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};

/** The HTTP process. */
export const mainBuild = {
  ...common,
  entryPoints: [{ in: 'src/server/main.ts', out: 'main' }],
  plugins: [analysisWithoutSideEffects],
};

/**
 * The vision, filter, HEIC and embedded database threads are their own entries: node:worker_threads
 * loads them from dist/server/vision-thread.js, filter-thread.js, heic-thread.js and pglite-thread.js.
 */
export const threadsBuild = {
  ...common,
  entryPoints: [
    { in: 'src/server/features/analysis/vision/thread.ts', out: 'vision-thread' },
    { in: 'src/server/features/filters/filter-thread.ts', out: 'filter-thread' },
    { in: 'src/server/lib/heic-thread.ts', out: 'heic-thread' },
    { in: 'src/server/db/pglite-thread.ts', out: 'pglite-thread' },
  ],
};
