import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fromRoot } from '../../lib/paths';
import { makeDerivatives, type Derivatives } from './image-pipeline';

/** The photo the photo editor opens (`GET /api/photos/demo`). */
export const EDITOR_DEMO_KEY = 'editor';

export interface DemoAsset {
  file: string;
  name: string;
  expectedCategory: string;
  demoKey: string;
  original: Buffer;
  derivatives: Derivatives;
}

interface ManifestEntry {
  file: string;
  name: string;
  expectedCategory: string;
}

const cache = new Map<string, Promise<DemoAsset[]>>();

/**
 * The committed demo photos with their derivatives, computed once per process (they are the same
 * for every account) and shared by every app instance; only the database rows differ per user.
 * The first food/drink photo (else the first one) is the editor's photo.
 */
export function loadDemoLibrary(dir = fromRoot('assets/demo-photos')): Promise<DemoAsset[]> {
  let p = cache.get(dir);
  if (!p) {
    p = (async () => {
      const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as ManifestEntry[];
      const editorIndex = Math.max(
        0,
        manifest.findIndex((m) => m.expectedCategory === 'food_drink'),
      );
      const assets: DemoAsset[] = [];
      // One at a time: sharp already uses both cores for each image.
      for (const [i, m] of manifest.entries()) {
        const original = await readFile(path.join(dir, m.file));
        assets.push({
          ...m,
          demoKey: i === editorIndex ? EDITOR_DEMO_KEY : `demo:${path.parse(m.file).name}`,
          original,
          derivatives: await makeDerivatives(original),
        });
      }
      return assets;
    })();
    p.catch(() => cache.delete(dir));
    cache.set(dir, p);
  }
  return p;
}
