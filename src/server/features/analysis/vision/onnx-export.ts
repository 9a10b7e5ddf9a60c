/**
 * Writes the embedding network (the Keras InceptionV3 that nsfwjs ships, cut after the chosen
 * blocks) as an ONNX model in memory, so ONNX Runtime's native CPU kernels can run it instead of
 * tfjs' WASM backend. Same weights, same arithmetic up to float rounding: the trained category
 * model needs no retraining. Nothing is written to disk or fetched; the model is rebuilt from the
 * nsfwjs files each time a vision thread loads.
 *
 * Only the layer kinds of that network are handled (Conv2D, BatchNormalization, Activation relu,
 * MaxPooling2D, AveragePooling2D, Concatenate); anything else is refused rather than guessed.
 */

/** Minimal protobuf encoder: varints, length-delimited fields, little-endian floats. */
export class Proto {
  private parts: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array) {
    this.parts.push(b);
    this.size += b.length;
  }

  private varint(n: number) {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`onnx export: bad varint ${n}`);
    const out: number[] = [];
    while (n >= 0x80) {
      out.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    out.push(n);
    this.push(Uint8Array.from(out));
  }

  private key(field: number, wire: number) {
    this.varint(field * 8 + wire);
  }

  int(field: number, n: number): this {
    this.key(field, 0);
    this.varint(n);
    return this;
  }

  float(field: number, x: number): this {
    this.key(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, x, true);
    this.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.key(field, 2);
    this.varint(b.length);
    this.push(b);
    return this;
  }

  str(field: number, s: string): this {
    return this.bytes(field, new TextEncoder().encode(s));
  }

  /** A nested message: its parts are shared, not copied (the weights are tens of MB, nested three deep). */
  msg(field: number, m: Proto): this {
    this.key(field, 2);
    this.varint(m.size);
    for (const p of m.parts) this.push(p);
    return this;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

// ONNX enum values (onnx.proto).
export const FLOAT = 1;
export const INT64 = 7;
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_INTS = 7;

/** An attribute value; `{ float }` marks a float (a plain number is an int). */
export type Attr = number | string | number[] | { float: number };

function attribute(name: string, v: Attr): Proto {
  const a = new Proto().str(1, name);
  if (typeof v === 'number') a.int(3, v).int(20, ATTR_INT);
  else if (typeof v === 'object' && !Array.isArray(v)) a.float(2, v.float).int(20, ATTR_FLOAT);
  else if (typeof v === 'string') a.str(4, v).int(20, ATTR_STRING);
  else {
    for (const x of v) a.int(8, x);
    a.int(20, ATTR_INTS);
  }
  return a;
}

export function node(op: string, inputs: string[], output: string, attrs: Record<string, Attr> = {}): Proto {
  const n = new Proto();
  for (const i of inputs) n.str(1, i);
  n.str(2, output).str(3, output).str(4, op);
  for (const [k, v] of Object.entries(attrs)) n.msg(5, attribute(k, v));
  return n;
}

export function tensor(name: string, dims: number[], data: Float32Array): Proto {
  const t = new Proto();
  for (const d of dims) t.int(1, d);
  t.int(2, FLOAT).str(8, name);
  return t.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/** A float tensor value; a string dimension is symbolic (the batch). */
export function valueInfo(name: string, dims: (number | string)[]): Proto {
  const shape = new Proto();
  for (const d of dims) shape.msg(1, typeof d === 'number' ? new Proto().int(1, d) : new Proto().str(2, d));
  const tensorType = new Proto().int(1, FLOAT).msg(2, shape);
  return new Proto().str(1, name).msg(2, new Proto().msg(1, tensorType));
}

export interface KerasLayer {
  name: string;
  class_name: string;
  config: Record<string, unknown>;
  inbound_nodes: unknown[];
}

/** Weights by Keras name (`conv2d_1/kernel`, `batch_normalization_1/moving_mean`, ...). */
export type NamedWeights = Record<string, { shape: number[]; data: Float32Array }>;

const SAME = 'SAME_UPPER'; // TF's "same" pads the extra pixel at the end, as SAME_UPPER does.

/**
 * Keras [kh, kw, in, out] -> ONNX [out, in, kh, kw]. A small function of its own, reading the
 * source in order: V8 optimises it after the first few kernels, whereas the same loops inline in
 * the long export function ran mostly unoptimised (~20 M weights at every thread's load).
 */
function toOutInHW(src: Float32Array, kh: number, kw: number, cin: number, cout: number): Float32Array {
  const out = new Float32Array(src.length);
  const stride = cin * kh * kw;
  let s = 0;
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++) {
        const at = (i * kh + y) * kw + x;
        for (let o = 0; o < cout; o++) out[o * stride + at] = src[s++]!;
      }
  return out;
}

/** Scales each output channel's weights by its batch norm and returns the folded bias. */
function foldBatchNorm(
  kernel: Float32Array,
  cout: number,
  eps: number,
  mean: Float32Array,
  variance: Float32Array,
  beta: Float32Array | undefined,
  gamma: Float32Array | undefined,
): Float32Array {
  const per = kernel.length / cout;
  const bias = new Float32Array(cout);
  for (let o = 0; o < cout; o++) {
    const s = (gamma?.[o] ?? 1) / Math.sqrt(variance[o]! + eps);
    const from = o * per;
    for (let j = from; j < from + per; j++) kernel[j]! *= s;
    bias[o] = (beta?.[o] ?? 0) - mean[o]! * s;
  }
  return bias;
}

function inputsOf(layer: KerasLayer): string[] {
  const first = layer.inbound_nodes[0];
  if (!Array.isArray(first)) return [];
  return first.map((x: unknown) => {
    if (!Array.isArray(x) || typeof x[0] !== 'string')
      throw new Error(`onnx export: bad inbound node in ${layer.name}`);
    return x[0];
  });
}

function pair(v: unknown, what: string): number[] {
  if (!Array.isArray(v) || v.length !== 2 || v.some((x) => typeof x !== 'number')) {
    throw new Error(`onnx export: bad ${what}`);
  }
  return v as number[];
}

function padding(v: unknown): string {
  if (v === 'same') return SAME;
  if (v === 'valid') return 'VALID';
  throw new Error(`onnx export: unsupported padding ${String(v)}`);
}

/**
 * ONNX model bytes: input `pixels` [batch, side, side, 3] float RGB in 0..255 (channels last, as
 * decoded), output `embedding` [batch, sum of the blocks' channels]: each block global-average-
 * pooled, concatenated in the given order, square-rooted, exactly as the tfjs embedder computes it.
 * The network's [0, 1] input scaling is folded into the first convolution, and every batch
 * normalisation into the convolution before it.
 */
export function inceptionToOnnx(
  layers: readonly KerasLayer[],
  weights: NamedWeights,
  outputBlocks: readonly string[],
  side: number,
  rawBlocks: readonly string[] = [],
): Uint8Array {
  const wanted = [...outputBlocks, ...rawBlocks];
  const at = wanted.map((b) => layers.findIndex((l) => l.name === b));
  const missing = wanted.find((_, i) => at[i]! < 0);
  if (missing) throw new Error(`onnx export: layer ${missing} not found`);
  const kept = layers.slice(0, Math.max(...at) + 1);

  const graph = new Proto().str(2, 'embedding');
  const nodes: Proto[] = [];
  const inits: Proto[] = [];
  /** Keras output name -> ONNX value name (a folded batch norm renames its conv's output). */
  const value = new Map<string, string>();
  /** Convolutions waiting for the batch norm that follows them. */
  const convs = new Map<string, { input: string; kernel: Float32Array; dims: number[]; attrs: Record<string, Attr> }>();
  let inputName: string | undefined;
  let firstConv = true;

  const w = (name: string) => {
    const x = weights[name];
    if (!x) throw new Error(`onnx export: weight ${name} missing`);
    return x;
  };

  for (const l of kept) {
    const ins = (l.class_name === 'BatchNormalization' ? [] : inputsOf(l)).map((n) => {
      const v = value.get(n);
      if (v === undefined) throw new Error(`onnx export: ${l.name} reads ${n}, which has no value`);
      return v;
    });
    const c = l.config;
    switch (l.class_name) {
      case 'InputLayer': {
        inputName = l.name;
        // Channels last in, channels first for the kernels.
        nodes.push(node('Transpose', ['pixels'], l.name, { perm: [0, 3, 1, 2] }));
        value.set(l.name, l.name);
        break;
      }
      case 'Conv2D': {
        if (c.use_bias !== false || (c.activation ?? 'linear') !== 'linear') {
          throw new Error(`onnx export: ${l.name} has a bias or activation`);
        }
        const k = w(`${l.name}/kernel`);
        const [kh, kw, cin, cout] = k.shape as [number, number, number, number];
        const kernel = toOutInHW(k.data, kh, kw, cin, cout);
        if (firstConv) {
          // The network was trained on pixels / 255.
          for (let i = 0; i < kernel.length; i++) kernel[i]! /= 255;
          firstConv = false;
        }
        const strides = pair(c.strides, `${l.name} strides`);
        const dilation = pair(c.dilation_rate ?? [1, 1], `${l.name} dilation`);
        if (dilation.some((d) => d !== 1)) throw new Error(`onnx export: ${l.name} is dilated`);
        convs.set(l.name, {
          input: ins[0]!,
          kernel,
          dims: [cout, cin, kh, kw],
          attrs: { kernel_shape: [kh, kw], strides, auto_pad: padding(c.padding) },
        });
        break;
      }
      case 'BatchNormalization': {
        const conv = convs.get(inputsOf(l)[0]!);
        if (!conv) throw new Error(`onnx export: ${l.name} does not follow a convolution`);
        const eps = typeof c.epsilon === 'number' ? c.epsilon : 1e-3;
        const mean = w(`${l.name}/moving_mean`).data;
        const variance = w(`${l.name}/moving_variance`).data;
        const beta = c.center === false ? undefined : w(`${l.name}/beta`).data;
        const gamma = c.scale === false ? undefined : w(`${l.name}/gamma`).data;
        const cout = conv.dims[0]!;
        const bias = foldBatchNorm(conv.kernel, cout, eps, mean, variance, beta, gamma);
        inits.push(tensor(`${l.name}/W`, conv.dims, conv.kernel), tensor(`${l.name}/B`, [cout], bias));
        nodes.push(node('Conv', [conv.input, `${l.name}/W`, `${l.name}/B`], l.name, conv.attrs));
        value.set(l.name, l.name);
        break;
      }
      case 'Activation': {
        if (c.activation !== 'relu') throw new Error(`onnx export: activation ${String(c.activation)}`);
        nodes.push(node('Relu', ins, l.name));
        value.set(l.name, l.name);
        break;
      }
      case 'MaxPooling2D':
      case 'AveragePooling2D': {
        const attrs: Record<string, Attr> = {
          kernel_shape: pair(c.pool_size, `${l.name} pool size`),
          strides: pair(c.strides, `${l.name} strides`),
          auto_pad: padding(c.padding),
        };
        // TF averages over the pixels inside the image only.
        if (l.class_name === 'AveragePooling2D') attrs.count_include_pad = 0;
        nodes.push(node(l.class_name === 'MaxPooling2D' ? 'MaxPool' : 'AveragePool', ins, l.name, attrs));
        value.set(l.name, l.name);
        break;
      }
      case 'Concatenate': {
        if (c.axis !== -1 && c.axis !== 3) throw new Error(`onnx export: ${l.name} joins on axis ${String(c.axis)}`);
        nodes.push(node('Concat', ins, l.name, { axis: 1 }));
        value.set(l.name, l.name);
        break;
      }
      default:
        throw new Error(`onnx export: layer kind ${l.class_name} (${l.name}) not supported`);
    }
  }
  if (!inputName) throw new Error('onnx export: no input layer');

  const pooled = outputBlocks.map((b) => {
    nodes.push(node('GlobalAveragePool', [value.get(b)!], `${b}/pool`));
    nodes.push(node('Flatten', [`${b}/pool`], `${b}/flat`, { axis: 1 }));
    return `${b}/flat`;
  });
  const joined = pooled.length === 1 ? pooled[0]! : 'pooled';
  if (pooled.length > 1) nodes.push(node('Concat', pooled, joined, { axis: 1 }));
  nodes.push(node('Sqrt', [joined], 'embedding'));
  // Spatial poolings beyond the global mean (scripts/lib/pooling.ts) read a block's whole map,
  // [batch, channels, height, width], as further outputs of the same run.
  for (const b of rawBlocks) nodes.push(node('Identity', [value.get(b)!], `raw/${b}`));

  for (const n of nodes) graph.msg(1, n);
  for (const t of inits) graph.msg(5, t);
  graph.msg(11, valueInfo('pixels', ['batch', side, side, 3]));
  graph.msg(12, valueInfo('embedding', ['batch', 'dims']));
  for (const b of rawBlocks) graph.msg(12, valueInfo(`raw/${b}`, ['batch', 'c', 'h', 'w']));
  // IR version 8, opset 13: what every ONNX Runtime of the last years reads.
  return new Proto().int(1, 8).str(2, 'eyevu').msg(7, graph).msg(8, new Proto().str(1, '').int(2, 13)).finish();
}

/** An int64 tensor (shapes, sizes, pads), written as raw little-endian bytes. */
export function int64Tensor(name: string, dims: number[], values: readonly number[]): Proto {
  const raw = new Uint8Array(values.length * 8);
  const view = new DataView(raw.buffer);
  values.forEach((v, i) => view.setBigInt64(i * 8, BigInt(v), true));
  const t = new Proto();
  for (const d of dims) t.int(1, d);
  t.int(2, INT64).str(8, name);
  return t.bytes(9, raw);
}
