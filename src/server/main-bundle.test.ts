import { build } from 'esbuild';
import { mainBuild, THREAD_ONLY_PACKAGES } from '../../scripts/server-bundle.mjs';

describe('the server bundle', () => {
  it('keeps the vision packages out of the HTTP process (the threads load them)', async () => {
    const res = await build({ ...mainBuild, write: false, metafile: true, sourcemap: false, logLevel: 'silent' });
    const main = Object.entries(res.metafile.outputs).find(([file]) => file.endsWith('main.js'))![1];
    const external = main.imports.filter((i) => i.external).map((i) => i.path);
    expect(external).toContain('fastify');
    expect(external).toContain('sharp');
    expect(external.filter((p) => THREAD_ONLY_PACKAGES.test(p))).toEqual([]);
  });
});
