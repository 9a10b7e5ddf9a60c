import * as ort from 'onnxruntime-node';
import { ensureTfWasm, tf } from './runtime';
import { graphToOnnx, type GraphNode, type GraphWeights } from './graph-onnx';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const list = (...i: number[]) => ({ list: { i: i.map(String) } });

function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.sin(i * 12.9898 + seed * 78.233) * 0.9;
  return out;
}

/** A small channels-last graph with the kinds of node the detectors use, weights made up. */
function smallGraph(): { nodes: GraphNode[]; weights: GraphWeights } {
  const weights: GraphWeights = {
    w: { shape: [3, 3, 2, 4], data: values(72, 1) },
    b: { shape: [4], data: values(4, 2) },
    dw: { shape: [3, 3, 4, 1], data: values(36, 3) },
    size: { shape: [2], data: Int32Array.from([6, 6]) },
    m: { shape: [4], data: values(4, 4) },
    axis: { shape: [], data: Int32Array.from([3]) },
  };
  const nodes: GraphNode[] = [
    { name: 'x', op: 'Placeholder' },
    ...Object.keys(weights).map((name) => ({ name, op: 'Const' })),
    {
      name: 'conv',
      op: '_FusedConv2D',
      input: ['x', 'w', 'b'],
      attr: {
        strides: list(1, 2, 2, 1),
        padding: { s: b64('SAME') },
        data_format: { s: b64('NHWC') },
        fused_ops: { list: { s: [b64('BiasAdd'), b64('Relu6')] } },
      },
    },
    {
      name: 'dconv',
      op: 'DepthwiseConv2dNative',
      input: ['conv', 'dw'],
      attr: { strides: list(1, 1, 1, 1), padding: { s: b64('SAME') } },
    },
    { name: 'up', op: 'ResizeBilinear', input: ['dconv', 'size'], attr: {} },
    { name: 'scaled', op: 'Mul', input: ['up', 'm'] },
    { name: 'joined', op: 'ConcatV2', input: ['scaled', 'up', 'axis'] },
  ];
  return { nodes, weights };
}

describe('tfjs graph -> ONNX', () => {
  it('computes what tfjs computes, channels last in and out', async () => {
    await ensureTfWasm();
    const { nodes, weights } = smallGraph();
    const bytes = graphToOnnx(nodes, weights, { input: 'x', inputShape: [1, 5, 5, 2], outputs: ['joined'] });
    const session = await ort.InferenceSession.create(bytes);
    const pixels = values(50, 5).map((v) => v * 4);
    const got = await session.run({ pixels: new ort.Tensor('float32', pixels, [1, 5, 5, 2]) });
    const want = tf.tidy(() => {
      const x = tf.tensor4d(pixels, [1, 5, 5, 2]);
      const w = tf.tensor4d(weights.w!.data as Float32Array, [3, 3, 2, 4]);
      const conv = tf.clipByValue(
        tf.add(tf.conv2d(x, w, 2, 'same'), tf.tensor1d(weights.b!.data as Float32Array)),
        0,
        6,
      );
      const dconv = tf.depthwiseConv2d(
        conv as tf.Tensor4D,
        tf.tensor4d(weights.dw!.data as Float32Array, [3, 3, 4, 1]),
        1,
        'same',
      );
      const up = tf.image.resizeBilinear(dconv, [6, 6]);
      return tf.concat([tf.mul(up, tf.tensor1d(weights.m!.data as Float32Array)), up], 3).dataSync() as Float32Array;
    });
    const out = got.output0!;
    expect(out.dims).toEqual([1, 6, 6, 8]);
    const data = out.data as Float32Array;
    let worst = 0;
    for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(data[i]! - want[i]!));
    expect(worst).toBeLessThan(1e-5);
    await session.release();
  });

  it("writes CenterNet's peak picking (max pool, equal, cast, multiply) to the same values as tfjs, ties included", async () => {
    await ensureTfWasm();
    const nodes: GraphNode[] = [
      { name: 'heat', op: 'Placeholder' },
      {
        name: 'pool',
        op: 'MaxPool',
        input: ['heat'],
        attr: { ksize: list(1, 3, 3, 1), strides: list(1, 1, 1, 1), padding: { s: b64('SAME') } },
      },
      { name: 'eq', op: 'Equal', input: ['heat', 'pool'] },
      { name: 'mask', op: 'Cast', input: ['eq'], attr: { SrcT: { type: 'DT_BOOL' }, DstT: { type: 'DT_FLOAT' } } },
      { name: 'peaks', op: 'Mul', input: ['heat', 'mask'] },
    ];
    const bytes = graphToOnnx(nodes, {}, { input: 'heat', inputShape: [1, 8, 8, 3], outputs: ['peaks'] });
    const session = await ort.InferenceSession.create(bytes);
    // Few distinct levels, so that neighbours tie (a plateau is a peak at every one of its cells).
    const heat = values(192, 7).map((v) => Math.round(v * 3) / 3);
    const got = (await session.run({ pixels: new ort.Tensor('float32', heat, [1, 8, 8, 3]) })).output0!;
    const want = tf.tidy(() => {
      const x = tf.tensor4d(heat, [1, 8, 8, 3]);
      const pooled = tf.maxPool(x, 3, 1, 'same');
      return tf.mul(x, tf.cast(tf.equal(x, pooled), 'float32')).dataSync() as Float32Array;
    });
    expect(got.dims).toEqual([1, 8, 8, 3]);
    expect(Array.from(got.data as Float32Array)).toEqual(Array.from(want));
    const kept = Array.from(want).filter((v) => v !== 0).length;
    expect(kept).toBeGreaterThan(10);
    expect(kept).toBeLessThan(150);
    await session.release();
    const castInt = nodes.map((n) =>
      n.name === 'mask' ? { ...n, attr: { SrcT: { type: 'DT_BOOL' }, DstT: { type: 'DT_INT32' } } } : n,
    );
    expect(() => graphToOnnx(castInt, {}, { input: 'heat', inputShape: [1, 8, 8, 3], outputs: ['peaks'] })).toThrow(
      /casts other than bool to float/,
    );
  });

  it('refuses an operation it does not know rather than guessing', () => {
    const { nodes, weights } = smallGraph();
    nodes.push({ name: 'odd', op: 'Atan2', input: ['scaled', 'up'] });
    expect(() => graphToOnnx(nodes, weights, { input: 'x', inputShape: [1, 5, 5, 2], outputs: ['odd'] })).toThrow(
      /operation Atan2 \(odd\) not supported/,
    );
  });
});
