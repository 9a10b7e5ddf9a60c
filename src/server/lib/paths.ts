import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The same code runs from `src/` (tests, tsx) and from the esbuild bundle in `dist/server/`, so
 * files that ship beside the code (migrations, demo photos, models) are found from the package root.
 */
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export const projectRoot = findRoot();
export const fromRoot = (...parts: string[]) => path.join(projectRoot, ...parts);
