/**
 * Makes the PWA icons from public/favicon.svg, once (the PNGs are committed):
 *   npx tsx scripts/generate-icons.ts
 * Regular icons are the logo edge to edge; the maskable one keeps the logo inside the 80 % safe zone
 * on the logo's own background colour, so launchers can crop it to any shape.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const root = fileURLToPath(new URL('..', import.meta.url));
const svg = readFileSync(`${root}public/favicon.svg`);
const BRAND = '#7c3aed';

const render = (size: number) =>
  sharp(svg, { density: Math.ceil((72 * size) / 64) })
    .resize(size, size)
    .png();

for (const size of [192, 512]) {
  await render(size).toFile(`${root}public/icons/icon-${size}.png`);
}
await render(180).flatten({ background: BRAND }).toFile(`${root}public/icons/apple-touch-icon.png`);

for (const size of [192, 512]) {
  const inner = Math.round(size * 0.7);
  const logo = await render(inner).toBuffer();
  await sharp({ create: { width: size, height: size, channels: 4, background: BRAND } })
    .composite([{ input: logo, gravity: 'centre' }])
    .png()
    .toFile(`${root}public/icons/maskable-${size}.png`);
}
console.log('icons written to public/icons/');
