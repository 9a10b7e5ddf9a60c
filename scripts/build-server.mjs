// Bundles the server's own code into dist/server; npm packages stay external and load from node_modules.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { BUILD_STAMP, buildInputsHash } from './build-inputs.mjs';
import { precompressWeb } from './precompress-web.mjs';
import { mainBuild, threadsBuild } from './server-bundle.mjs';

await Promise.all([build(mainBuild), build(threadsBuild)]);

// `vite build` ran first: pre-compress the client's text files (.br, .gz) for the static server.
await precompressWeb();

// Last, so an interrupted build leaves no stamp: `npm start` then builds again instead of serving it.
writeFileSync(BUILD_STAMP, `${buildInputsHash()}\n`);
