// usage: node sheet.mjs out.png file1 file2 ...  (tiles 160px with index labels)
import sharp from 'sharp';
const [out, ...files] = process.argv.slice(2);
const T = 150, cols = 8, rows = Math.ceil(files.length / cols);
const comps = [];
for (let i = 0; i < files.length; i++) {
  try {
    const buf = await sharp(files[i]).flatten({ background: '#fff' }).resize(T, T, { fit: 'contain', background: '#888' }).png().toBuffer();
    comps.push({ input: buf, left: (i % cols) * T, top: Math.floor(i / cols) * (T + 14) });
  } catch (e) {}
  const svg = `<svg width="${T}" height="14"><rect width="${T}" height="14" fill="black"/><text x="2" y="11" font-size="11" fill="yellow">${i}</text></svg>`;
  comps.push({ input: Buffer.from(svg), left: (i % cols) * T, top: Math.floor(i / cols) * (T + 14) + T });
}
await sharp({ create: { width: cols * T, height: rows * (T + 14), channels: 3, background: '#333' } }).composite(comps).png().toFile(out);
