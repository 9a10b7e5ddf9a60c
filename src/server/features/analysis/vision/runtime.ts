import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { fromRoot } from '../../../lib/paths';

/**
 * Locates an installed package's directory on disk. We need real paths (not module
 * objects) because the WASM binaries and model weights are read as files. Resolution
 * goes through Node first so it works from src/ under vitest and from dist/server/ after
 * esbuild bundling; <package root>/node_modules is the fallback for bundles where import.meta.url
 * is unavailable.
 */
export function packageDir(name: string, fromDir?: string): string {
  const candidates: string[] = [];
  if (fromDir) candidates.push(path.join(fromDir, name));
  try {
    const req = createRequire(import.meta.url);
    // Packages with an `exports` map may hide package.json, so resolve the entry point
    // and walk up to the folder that owns it.
    let dir = path.dirname(req.resolve(name));
    while (dir !== path.dirname(dir)) {
      if (path.basename(dir) === name.split('/').pop() && existsSync(path.join(dir, 'package.json'))) {
        candidates.push(dir);
        break;
      }
      dir = path.dirname(dir);
    }
  } catch {
    // fall through to the package-root lookup
  }
  candidates.push(fromRoot('node_modules', name));
  const found = candidates.find((c) => existsSync(path.join(c, 'package.json')));
  if (!found) throw new Error(`vision: cannot locate package ${name}`);
  return found;
}

let ready: Promise<void> | undefined;

/**
 * Selects tfjs' WASM backend with binaries from local node_modules. Done once per
 * process (or worker thread): tfjs keeps a global engine, and both the embedder and
 * @vladmandic/human share it.
 */
export function ensureTfWasm(nodeModulesDir?: string): Promise<void> {
  ready ??= (async () => {
    const wasmDir = path.join(packageDir('@tensorflow/tfjs-backend-wasm', nodeModulesDir), 'dist');
    // tfjs joins prefix + filename, so the trailing separator is required.
    setWasmPaths(wasmDir + path.sep);
    const ok = await tf.setBackend('wasm');
    if (!ok) throw new Error('vision: tfjs wasm backend failed to initialise');
    await tf.ready();
  })();
  return ready;
}

export { tf };
