/** Colour names and sky share from a small thumbnail: tags and the indoor/outdoor guess. */

export interface ColourSummary {
  /** Mean luma 0..1. */
  brightness: number;
  /** Colour names covering a meaningful share of the image, most common first. */
  dominant: string[];
  /** Share of the top third that looks like sky (blue, or bright low-saturation overcast). */
  skyShare: number;
}

/** Coarse names a person would use when searching; hue bands are deliberately wide. */
export function colourName(r: number, g: number, b: number): string {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2 / 255;
  const s = max === min ? 0 : (max - min) / (255 - Math.abs(max + min - 255));
  if (l < 0.16) return 'black';
  if (s < 0.18 || max - min < 24) return l > 0.82 ? 'white' : 'gray';
  let h: number;
  if (max === r) h = ((g - b) / (max - min)) % 6;
  else if (max === g) h = (b - r) / (max - min) + 2;
  else h = (r - g) / (max - min) + 4;
  h = (h * 60 + 360) % 360;
  if (h < 15 || h >= 340) return l > 0.7 ? 'pink' : 'red';
  if (h < 40) return l < 0.45 ? 'brown' : 'orange';
  if (h < 68) return l < 0.35 ? 'brown' : 'yellow';
  if (h < 165) return 'green';
  if (h < 255) return 'blue';
  if (h < 290) return 'purple';
  return 'pink';
}

/** `rgb` is packed RGB (3 bytes per pixel), typically a 32x32 thumbnail. */
export function summarizeColours(rgb: ArrayLike<number>, width: number, height: number): ColourSummary {
  const counts = new Map<string, number>();
  let luma = 0;
  let sky = 0;
  let topPixels = 0;
  const px = width * height;
  for (let i = 0; i < px; i++) {
    const r = rgb[i * 3];
    const g = rgb[i * 3 + 1];
    const b = rgb[i * 3 + 2];
    luma += (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    const name = colourName(r, g, b);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (Math.floor(i / width) < height / 3) {
      topPixels++;
      const blueSky = b > 120 && b >= r && b >= g - 10;
      const overcast = name === 'white' || (name === 'gray' && r + g + b > 450);
      if (blueSky || overcast) sky++;
    }
  }
  const dominant = [...counts.entries()]
    .filter(([, n]) => n / px >= 0.15)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([name]) => name);
  return { brightness: px ? luma / px : 0, dominant, skyShare: topPixels ? sky / topPixels : 0 };
}
