import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fromRoot } from '../../../lib/paths';
import { ensureTfWasm, packageDir, tf } from './runtime';
import { loadOnnxRuntime } from './embedder';
import { loadCenterNet, readGraphModel } from './centernet';
import { loadDetector } from './detectors';
import { decodeForModels } from './engine';

const modelsDir = () => path.join(packageDir('@vladmandic/human'), 'models');
const demo = (name: string) => readFile(fromRoot('assets', 'demo-photos', name));

/** Largest difference relative to the largest value (the box-size map is in pixels, the heat map 0..1). */
function worstRelative(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  let scale = 1e-6;
  for (let i = 0; i < a.length; i++) {
    worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    scale = Math.max(scale, Math.abs(b[i]!));
  }
  return worst / Math.max(scale, 1);
}

describe('CenterNet on ONNX Runtime (real weights from @vladmandic/human)', () => {
  it('computes the maps tfjs computes (heat-map peaks, box sizes), within 1e-4', { timeout: 120_000 }, async () => {
    await ensureTfWasm();
    const ort = await loadOnnxRuntime();
    expect(ort).toBeDefined();
    const onnx = await loadCenterNet(ort!, modelsDir(), { minConfidence: 0.3, maxDetected: 20, iouThreshold: 0.4 });
    const { artifacts } = await readGraphModel(modelsDir(), 'centernet');
    const reference = await tf.loadGraphModel(tf.io.fromMemory(artifacts));
    const { detect } = await decodeForModels(await demo('cocker-spaniels-at-window.jpg'));
    const frame = tf.tensor4d(Float32Array.from(detect.data), [1, detect.height, detect.width, 3]);
    const [peaks, sizes] = tf.tidy(() => {
      const x = tf.image.resizeBilinear(frame, [512, 512]);
      return (reference.execute(x, ['tower_0/mul_1', 'tower_0/wh']) as tf.Tensor[]).map(
        (t) => t.dataSync() as Float32Array,
      );
    });
    const got = await onnx.maps(frame);
    expect(got.peaks.length).toBe(peaks!.length);
    expect(got.sizes.length).toBe(sizes!.length);
    // A peak is where a value is the largest of its neighbourhood: where two neighbours differ by
    // less than the runtimes' rounding (~1e-6), one runtime may see a peak the other does not. Such
    // flips are tiny values, far below what counts as an object (0.3); everything else matches.
    const flips = got.peaks.map((v, i) => (Math.abs(v - peaks![i]!) > 1e-4 ? Math.max(v, peaks![i]!) : 0));
    expect(flips.reduce((a, v) => Math.max(a, v), 0)).toBeLessThan(0.05);
    expect(
      worstRelative(
        got.peaks.map((v, i) => (flips[i] ? 0 : v)),
        peaks!.map((v, i) => (flips[i] ? 0 : v)),
      ),
    ).toBeLessThan(1e-4);
    expect(worstRelative(got.sizes, sizes!)).toBeLessThan(1e-4);
    // Peaks only: most of the map is zero, and something in the photo stands out.
    let peak = 0;
    let zeros = 0;
    for (const v of got.peaks) {
      peak = Math.max(peak, v);
      if (v === 0) zeros += 1;
    }
    expect(zeros).toBeGreaterThan(0.8 * got.peaks.length);
    expect(peak).toBeGreaterThan(0.3);
    frame.dispose();
    reference.dispose();
    onnx.dispose();
  });

  it('the detector reports the objects and faces it reports with CenterNet on tfjs', { timeout: 180_000 }, async () => {
    await ensureTfWasm();
    const onnx = await loadDetector();
    const tfjs = await loadDetector(undefined, undefined, { runtime: 'tfjs' });
    expect(onnx.objectsRuntime).toBe('onnxruntime');
    expect(onnx.facesRuntime).toBe('onnxruntime');
    expect(tfjs.objectsRuntime).toBe('tfjs');
    expect(tfjs.facesRuntime).toBe('tfjs');
    let objects = 0;
    let faces = 0;
    for (const name of [
      'cocker-spaniels-at-window.jpg',
      'astronaut-eileen-collins.jpg',
      'espresso-cup-on-saucer.jpg',
    ]) {
      const { detect } = await decodeForModels(await demo(name));
      const a = await onnx.detect(detect);
      const b = await tfjs.detect(detect);
      expect(a.objects.map((o) => o.label)).toEqual(b.objects.map((o) => o.label));
      a.objects.forEach((o, i) => {
        const r = b.objects[i]!;
        // Human truncates scores to hundredths and boxes to whole pixels: one step either way at most.
        expect(Math.abs(o.score - r.score)).toBeLessThanOrEqual(0.01 + 1e-9);
        for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(o.box[k] - r.box[k])).toBeLessThan(0.01);
      });
      expect(a.faces.length).toBe(b.faces.length);
      a.faces.forEach((f, i) => {
        const r = b.faces[i]!;
        expect(f.hasMesh).toBe(r.hasMesh);
        expect(Math.abs(f.score - r.score)).toBeLessThanOrEqual(0.01 + 1e-9);
        for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(f.box[k] - r.box[k])).toBeLessThan(0.01);
      });
      faces += a.faces.filter((f) => f.hasMesh).length;
      objects += a.objects.length;
    }
    expect(objects).toBeGreaterThan(2);
    // The astronaut's face: the face models ran, and found it either way.
    expect(faces).toBeGreaterThan(0);
  });
});
