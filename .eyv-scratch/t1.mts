import sharp from 'sharp';
import { ensureTfWasm, tf } from '../src/server/features/analysis/vision/runtime';
import { loadEmbedder, EMBEDDING_INPUT } from '../src/server/features/analysis/vision/embedder';
const t0 = Date.now();
await ensureTfWasm();
console.log('backend', tf.getBackend(), Date.now()-t0);
const e = await loadEmbedder();
console.log('loaded', e.dims, Date.now()-t0, 'ms');
const { data } = await sharp('/tmp/eyv/x/darknet/usr/share/darknet/data/dog.jpg').resize(EMBEDDING_INPUT, EMBEDDING_INPUT, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
for (let i = 0; i < 5; i++) { const t = Date.now(); const v = e.embed({ data, width: EMBEDDING_INPUT, height: EMBEDDING_INPUT }); console.log('embed', Date.now()-t, v.length, v[0]); }
console.log(tf.memory());
