import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tf } from './runtime';

/**
 * URL scheme under which model files are served straight from disk. @vladmandic/human
 * builds model URLs as `${modelBasePath}${name}.json` and hands them to tfjs, which asks
 * registered IO routers first — so registering this scheme means no fetch and no
 * network are involved, regardless of what global fetch would do.
 */
export const LOCAL_SCHEME = 'eyevu-local://';

export function localModelBase(dir: string): string {
  return LOCAL_SCHEME + path.resolve(dir) + '/';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** tfjs-converter graph-model JSON + sibling .bin shards, read with fs. */
function diskGraphModelHandler(jsonPath: string): tf.io.IOHandler {
  return {
    async load() {
      const json: unknown = JSON.parse(await readFile(jsonPath, 'utf8'));
      if (!isRecord(json) || !Array.isArray(json.weightsManifest)) {
        throw new Error(`vision: ${jsonPath} is not a tfjs model.json`);
      }
      const dir = path.dirname(jsonPath);
      const specs: tf.io.WeightsManifestEntry[] = [];
      const buffers: Buffer[] = [];
      for (const group of json.weightsManifest as unknown[]) {
        if (!isRecord(group) || !Array.isArray(group.paths) || !Array.isArray(group.weights)) {
          throw new Error(`vision: bad weightsManifest in ${jsonPath}`);
        }
        specs.push(...(group.weights as tf.io.WeightsManifestEntry[]));
        for (const p of group.paths as unknown[]) {
          if (typeof p !== 'string') throw new Error(`vision: bad shard path in ${jsonPath}`);
          buffers.push(await readFile(path.join(dir, p)));
        }
      }
      const all = Buffer.concat(buffers);
      return {
        modelTopology: json.modelTopology as tf.io.ModelArtifacts['modelTopology'],
        format: typeof json.format === 'string' ? json.format : undefined,
        generatedBy: typeof json.generatedBy === 'string' ? json.generatedBy : undefined,
        convertedBy: typeof json.convertedBy === 'string' ? json.convertedBy : undefined,
        userDefinedMetadata: isRecord(json.userDefinedMetadata)
          ? (json.userDefinedMetadata as Record<string, object>)
          : undefined,
        modelInitializer: json.modelInitializer as tf.io.ModelArtifacts['modelInitializer'],
        // Human reads input sizes from the signature.
        signature: isRecord(json.signature) ? (json.signature as Record<string, object>) : undefined,
        weightSpecs: specs,
        weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      };
    },
  };
}

let registered = false;

export function registerLocalModelRouter(): void {
  if (registered) return;
  registered = true;
  // tfjs routers signal "not mine" with null even though IORouter's type omits it.
  const router = (url: string | string[]): tf.io.IOHandler | null => {
    if (typeof url !== 'string' || !url.startsWith(LOCAL_SCHEME)) return null;
    const rest = url.slice(LOCAL_SCHEME.length);
    // Tolerate file:// style inputs so callers can pass either form.
    const p = rest.startsWith('file:') ? fileURLToPath(rest) : rest;
    return diskGraphModelHandler(p);
  };
  tf.io.registerLoadRouter(router as Parameters<typeof tf.io.registerLoadRouter>[0]);
}
