import { createRequire } from 'node:module';
import type { InferenceSession, OnnxValue } from 'onnxruntime-node';
import { tf } from './runtime';
import { graphToOnnx } from './graph-onnx';
import { readGraphModel } from './centernet';
import type { OnnxRuntime } from './embedder';

/**
 * onnxruntime-node's native session object: its `run` is synchronous (the package's public
 * `InferenceSession.run` only wraps it in a promise). Human calls its face models' `execute`
 * synchronously and reads the tensors it returns, so only this object can stand in for tfjs there.
 * The package is pinned to an exact version; if this file is not where it was, the face models
 * stay on tfjs.
 */
interface NativeSession {
  loadModel(
    buffer: ArrayBuffer,
    byteOffset: number,
    byteLength: number,
    options: InferenceSession.SessionOptions,
  ): void;
  run(
    feeds: Record<string, OnnxValue>,
    fetches: Record<string, null>,
    options: InferenceSession.RunOptions,
  ): Record<string, OnnxValue>;
  dispose(): void;
}

function nativeSessions(): (new () => NativeSession) | undefined {
  try {
    const mod = createRequire(import.meta.url)('onnxruntime-node/dist/binding') as {
      binding?: { InferenceSession?: new () => NativeSession };
      initOrt?: () => void;
    };
    if (typeof mod.initOrt !== 'function' || typeof mod.binding?.InferenceSession !== 'function') return undefined;
    mod.initOrt();
    return mod.binding.InferenceSession;
  } catch {
    return undefined;
  }
}

/** The part of a tfjs GraphModel Human uses. */
export interface ExecutableGraph {
  execute(inputs: unknown, outputs?: unknown): tf.Tensor | tf.Tensor[];
  readonly outputNodes: string[];
  readonly inputNodes: string[];
}

/**
 * Makes `model.execute(tensor)` (one channels-last image batch in, the model's default outputs
 * back) run on ONNX Runtime, written as ONNX from the same files; any other call goes to tfjs.
 * Returns false (and changes nothing) where the native session cannot be had.
 */
export async function runGraphOnOnnx(
  ort: OnnxRuntime,
  model: ExecutableGraph,
  modelsDir: string,
  name: string,
): Promise<boolean> {
  const Session = nativeSessions();
  if (!Session || model.inputNodes.length !== 1) return false;
  const { nodes, weights, nodeOf } = await readGraphModel(modelsDir, name);
  const input = nodeOf(model.inputNodes[0]!);
  const placeholder = nodes.find((n) => n.name === input);
  const dims = (placeholder?.attr?.shape as { shape?: { dim?: { size?: string }[] } } | undefined)?.shape?.dim;
  const shape = (dims ?? []).map((d) => Number(d.size ?? -1));
  if (shape.length !== 4) return false;
  // In the order tfjs returns them.
  const outputs = model.outputNodes.map(nodeOf);
  const bytes = graphToOnnx(nodes, weights, { input, inputShape: shape, outputs });
  const session = new Session();
  session.loadModel(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const fetches = Object.fromEntries(outputs.map((_, i) => [`output${i}`, null]));
  const original = model.execute.bind(model);
  (model as { execute: ExecutableGraph['execute'] }).execute = (inputs, wanted) => {
    if (!(inputs instanceof tf.Tensor) || wanted !== undefined || inputs.dtype !== 'float32') {
      return original(inputs, wanted);
    }
    const x = inputs;
    const res = session.run({ pixels: new ort.Tensor('float32', x.dataSync() as Float32Array, x.shape) }, fetches, {});
    const out = outputs.map((_, i) => {
      const v = res[`output${i}`] as { data: Float32Array; dims: readonly number[] } | undefined;
      if (!v) throw new Error(`vision: ${name} output missing`);
      return tf.tensor(v.data, [...v.dims]);
    });
    return out.length === 1 ? out[0]! : out;
  };
  return true;
}
