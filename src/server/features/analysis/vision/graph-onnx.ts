/**
 * Writes a tfjs graph model (the detectors @vladmandic/human ships: CenterNet, BlazeFace, FaceMesh)
 * as an ONNX model in memory, up to the nodes asked for, so ONNX Runtime's native kernels run the
 * convolutions instead of tfjs' WASM backend. Same weights, same arithmetic up to float rounding.
 * Inside the ONNX graph every image tensor is channels first (what ONNX convolutions take); the
 * input and the outputs stay channels last, as tfjs has them, so tfjs code around the network
 * (a model's own post-processing, Human's decoding) reads them unchanged.
 *
 * Only the operations these networks use are handled; anything else is refused, not guessed.
 */
import { FLOAT, int64Tensor, node, Proto, tensor, valueInfo, type Attr } from './onnx-export';

/** A node of a tfjs graph model's topology (`modelTopology.node`). */
export interface GraphNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, GraphAttr>;
}

interface GraphAttr {
  s?: string;
  i?: string | number;
  f?: number;
  b?: boolean;
  type?: string;
  list?: { i?: (string | number)[]; s?: string[] };
}

/** Constant values by node name, as tfjs decoded them from the model's weights. */
export type GraphWeights = Record<string, { shape: number[]; data: Float32Array | Int32Array }>;

const text = (a: GraphAttr | undefined) => (a?.s === undefined ? undefined : Buffer.from(a.s, 'base64').toString());
const ints = (a: GraphAttr | undefined) => (a?.list?.i ?? []).map(Number);
const texts = (a: GraphAttr | undefined) => (a?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString());

/** How a value is laid out: an image tensor (channels first inside ONNX) or anything else. */
type Layout = 'image' | 'plain';

export interface GraphToOnnxOptions {
  /** The placeholder fed with pixels, [batch, height, width, channels]. */
  input: string;
  /** Its shape; -1 or a string for a dimension left open. */
  inputShape: (number | string)[];
  /** Nodes whose values the ONNX model returns, channels last (an image) or as tfjs has them. */
  outputs: readonly string[];
}

export function graphToOnnx(nodes: readonly GraphNode[], weights: GraphWeights, o: GraphToOnnxOptions): Uint8Array {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const out: Proto[] = [];
  const inits: Proto[] = [];
  const layout = new Map<string, Layout>();
  const emitted = new Set<string>();
  let uniq = 0;
  const fresh = (base: string) => `${base}/_${uniq++}`;

  const constOf = (name: string) => {
    const w = weights[name];
    if (!w) throw new Error(`graph export: constant ${name} missing`);
    return w;
  };
  const isConst = (name: string) => byName.get(name)?.op === 'Const';
  const floatInit = (name: string, dims: number[], data: ArrayLike<number>) => {
    inits.push(tensor(name, dims, Float32Array.from(data)));
    return name;
  };
  const int64Init = (name: string, values: number[]) => {
    inits.push(int64Tensor(name, [values.length], values));
    return name;
  };

  /** A constant operand of an elementwise op beside an image: [C] or [1,1,1,C] becomes [C,1,1]. */
  const broadcastConst = (name: string, beside: Layout): string => {
    const w = constOf(name);
    const size = w.data.length;
    if (size === 1) return floatInit(fresh(name), [], w.data);
    if (beside !== 'image') return floatInit(fresh(name), w.shape, w.data);
    if (w.shape.slice(0, -1).some((d) => d !== 1)) throw new Error(`graph export: ${name} broadcasts oddly`);
    return floatInit(fresh(name), [size, 1, 1], w.data);
  };

  /** Channels-last Keras/TF kernel [kh, kw, in, out] (or depthwise [kh, kw, C, mult]) to ONNX [out, in, kh, kw]. */
  const convKernel = (name: string, depthwise: boolean) => {
    const k = constOf(name);
    const [kh, kw, cin, m] = k.shape as [number, number, number, number];
    const cout = depthwise ? cin * m : m;
    const per = depthwise ? 1 : cin;
    const data = new Float32Array(k.data.length);
    for (let y = 0; y < kh; y++)
      for (let x = 0; x < kw; x++)
        for (let i = 0; i < cin; i++)
          for (let j = 0; j < m; j++) {
            const src = ((y * kw + x) * cin + i) * m + j;
            const oc = depthwise ? i * m + j : j;
            const ic = depthwise ? 0 : i;
            data[((oc * per + ic) * kh + y) * kw + x] = k.data[src]!;
          }
    return { name: floatInit(fresh(name), [cout, per, kh, kw], data), cin, cout };
  };

  const padAttrs = (n: GraphNode): Record<string, Attr> => {
    const p = text(n.attr?.padding);
    if (p === 'SAME') return { auto_pad: 'SAME_UPPER' };
    if (p === 'VALID') return { auto_pad: 'VALID' };
    if (p === 'EXPLICIT') {
      const e = ints(n.attr?.explicit_paddings); // NHWC pairs
      return { pads: [e[2]!, e[4]!, e[3]!, e[5]!] };
    }
    throw new Error(`graph export: ${n.name} has padding ${String(p)}`);
  };

  const hw = (v: number[], what: string) => {
    if (v.length !== 4) throw new Error(`graph export: bad ${what}`);
    return [v[1]!, v[2]!];
  };

  /** Emits what computes `name` (and its inputs first); returns the ONNX value name. */
  const value = (ref: string): string => {
    const [name, index] = ref.split(':') as [string, string | undefined];
    if (index !== undefined && index !== '0') throw new Error(`graph export: output ${ref} of a multi-output node`);
    if (emitted.has(name)) return name;
    const n = byName.get(name);
    if (!n) throw new Error(`graph export: node ${name} not found`);
    if (n.op === 'Const') throw new Error(`graph export: constant ${name} used as a tensor`);
    const ins = n.input ?? [];
    const image = (i: number) => {
      const v = value(ins[i]!);
      if (layout.get(v) !== 'image') throw new Error(`graph export: ${name} expects an image input`);
      return v;
    };
    let lay: Layout = 'image';
    const emit = (op: string, inputs: string[], attrs: Record<string, Attr> = {}, output = name) => {
      out.push(node(op, inputs, output, attrs));
      return output;
    };
    switch (n.op) {
      case 'Placeholder': {
        if (name !== o.input) throw new Error(`graph export: unexpected input ${name}`);
        emit('Transpose', ['pixels'], { perm: [0, 3, 1, 2] });
        break;
      }
      case 'Identity':
        lay = layout.get(value(ins[0]!))!;
        emit('Identity', [value(ins[0]!)]);
        break;
      case 'Conv2D':
      case '_FusedConv2D':
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative': {
        const depthwise = n.op.includes('Depthwise');
        if (text(n.attr?.data_format) !== undefined && text(n.attr?.data_format) !== 'NHWC') {
          throw new Error(`graph export: ${name} is not channels last`);
        }
        const x = image(0);
        const k = convKernel(ins[1]!, depthwise);
        const fused = texts(n.attr?.fused_ops);
        const inputs = [x, k.name];
        let rest = fused;
        if (fused[0] === 'BiasAdd') {
          inputs.push(floatInit(fresh(ins[2]!), [k.cout], constOf(ins[2]!).data));
          rest = fused.slice(1);
        } else if (fused.length) throw new Error(`graph export: ${name} fuses ${fused.join(',')}`);
        const attrs: Record<string, Attr> = {
          kernel_shape: constOf(ins[1]!).shape.slice(0, 2),
          strides: hw(ints(n.attr?.strides), `${name} strides`),
          dilations: n.attr?.dilations ? hw(ints(n.attr.dilations), `${name} dilations`) : [1, 1],
          ...padAttrs(n),
        };
        if (depthwise) attrs.group = k.cin;
        if (rest.length === 0) {
          emit('Conv', inputs, attrs);
          break;
        }
        const conv = emit('Conv', inputs, attrs, fresh(name));
        if (rest.length !== 1) throw new Error(`graph export: ${name} fuses ${fused.join(',')}`);
        if (rest[0] === 'Relu') emit('Relu', [conv]);
        else if (rest[0] === 'Relu6')
          emit('Clip', [conv, floatInit(fresh('zero'), [], [0]), floatInit(fresh('six'), [], [6])]);
        else if (rest[0] === 'Prelu') {
          const alpha = constOf(ins[3]!);
          emit('PRelu', [conv, floatInit(fresh(ins[3]!), [alpha.data.length, 1, 1], alpha.data)]);
        } else throw new Error(`graph export: ${name} fuses ${rest[0]}`);
        break;
      }
      case 'Add':
      case 'AddV2':
      case 'Sub':
      case 'Mul': {
        const op = n.op === 'Mul' ? 'Mul' : n.op === 'Sub' ? 'Sub' : 'Add';
        const tensorIn = ins.filter((i) => !isConst(i)).map((i) => value(i));
        lay = tensorIn.some((v) => layout.get(v) === 'image') ? 'image' : 'plain';
        if (tensorIn.length === 2 && layout.get(tensorIn[0]!) !== layout.get(tensorIn[1]!)) {
          // An image times a per-photo scalar map of another layout does not occur in these networks.
          throw new Error(`graph export: ${name} mixes layouts`);
        }
        emit(
          op,
          ins.map((i) => (isConst(i) ? broadcastConst(i, lay) : value(i))),
        );
        break;
      }
      case 'Equal': {
        // Exact on equal inputs (CenterNet's peaks: a value equal to the max of its neighbourhood).
        if (ins.some(isConst)) throw new Error(`graph export: ${name} compares with a constant`);
        emit('Equal', [image(0), image(1)]);
        break;
      }
      case 'Cast': {
        if (n.attr?.SrcT?.type !== 'DT_BOOL' || n.attr?.DstT?.type !== 'DT_FLOAT') {
          throw new Error(`graph export: ${name} casts other than bool to float`);
        }
        emit('Cast', [image(0)], { to: FLOAT });
        break;
      }
      case 'Relu':
        emit('Relu', [image(0)]);
        break;
      case 'Relu6':
        emit('Clip', [image(0), floatInit(fresh('zero'), [], [0]), floatInit(fresh('six'), [], [6])]);
        break;
      case 'Sigmoid':
        emit('Sigmoid', [image(0)]);
        break;
      case 'Prelu': {
        const alpha = constOf(ins[1]!);
        emit('PRelu', [image(0), floatInit(fresh(ins[1]!), [alpha.data.length, 1, 1], alpha.data)]);
        break;
      }
      case 'Mean': {
        const axes = Array.from(constOf(ins[1]!).data);
        if (axes.join() !== '1,2' || n.attr?.keep_dims?.b !== true)
          throw new Error(`graph export: ${name} reduces ${axes.join()}`);
        emit('GlobalAveragePool', [image(0)]);
        break;
      }
      case 'MaxPool': {
        emit('MaxPool', [image(0)], {
          kernel_shape: hw(ints(n.attr?.ksize), `${name} ksize`),
          strides: hw(ints(n.attr?.strides), `${name} strides`),
          ...padAttrs(n),
        });
        break;
      }
      case 'ResizeBilinear': {
        if (n.attr?.align_corners?.b || n.attr?.half_pixel_centers?.b) {
          throw new Error(`graph export: ${name} uses corner alignment or half-pixel centres`);
        }
        const x = image(0);
        const size = Array.from(constOf(ins[1]!).data);
        // Batch and channels from the input, height and width from the node.
        const shape = emit('Shape', [x], {}, fresh(`${name}/shape`));
        const nc = emit(
          'Slice',
          [shape, int64Init(fresh('starts'), [0]), int64Init(fresh('ends'), [2])],
          {},
          fresh(`${name}/nc`),
        );
        const sizes = emit('Concat', [nc, int64Init(fresh('hw'), size)], { axis: 0 }, fresh(`${name}/sizes`));
        // TF's resize without half-pixel centres samples at dst * in / out: ONNX's 'asymmetric'.
        emit('Resize', [x, '', '', sizes], { mode: 'linear', coordinate_transformation_mode: 'asymmetric' });
        break;
      }
      case 'ConcatV2': {
        const axis = constOf(ins[ins.length - 1]!).data[0]!;
        const parts = ins.slice(0, -1).map((_, i) => image(i));
        if (axis !== 3 && axis !== -1) throw new Error(`graph export: ${name} joins on axis ${axis}`);
        emit('Concat', parts, { axis: 1 });
        break;
      }
      case 'Pad': {
        const p = Array.from(constOf(ins[1]!).data); // NHWC [before, after] pairs
        if (p.length !== 8) throw new Error(`graph export: ${name} pads ${p.length / 2} axes`);
        const nchw = [0, 3, 1, 2];
        const pads = [...nchw.map((a) => p[a * 2]!), ...nchw.map((a) => p[a * 2 + 1]!)];
        emit('Pad', [image(0), int64Init(fresh('pads'), pads)], { mode: 'constant' });
        break;
      }
      case 'Reshape': {
        const x = value(ins[0]!);
        const from = layout.get(x) === 'image' ? emit('Transpose', [x], { perm: [0, 2, 3, 1] }, fresh(name)) : x;
        emit('Reshape', [from, int64Init(fresh('shape'), Array.from(constOf(ins[1]!).data))]);
        lay = 'plain';
        break;
      }
      default:
        throw new Error(`graph export: operation ${n.op} (${name}) not supported`);
    }
    emitted.add(name);
    layout.set(name, lay);
    return name;
  };

  const results = o.outputs.map((ref, i) => {
    const v = value(ref);
    const name = `output${i}`;
    if (layout.get(v) === 'image') out.push(node('Transpose', [v], name, { perm: [0, 2, 3, 1] }));
    else out.push(node('Identity', [v], name));
    return name;
  });

  const graph = new Proto().str(2, 'detector');
  for (const n of out) graph.msg(1, n);
  for (const t of inits) graph.msg(5, t);
  graph.msg(
    11,
    valueInfo(
      'pixels',
      o.inputShape.map((d) => (d === -1 ? 'batch' : d)),
    ),
  );
  results.forEach((r) => graph.msg(12, outputInfo(r)));
  return new Proto().int(1, 8).str(2, 'eyevu').msg(7, graph).msg(8, new Proto().str(1, '').int(2, 13)).finish();
}

/** A float output of unknown shape. */
function outputInfo(name: string): Proto {
  return new Proto().str(1, name).msg(2, new Proto().msg(1, new Proto().int(1, FLOAT)));
}
