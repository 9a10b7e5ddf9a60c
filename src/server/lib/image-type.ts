/** The image types uploads accept, as sniffed from their bytes. */
export type ImageMime =
  'image/jpeg' | 'image/png' | 'image/webp' | 'image/avif' | 'image/gif' | 'image/tiff' | 'image/heic';

const ascii = (b: Buffer, start: number, end: number) => b.subarray(start, end).toString('latin1');

/** The real type from the first bytes; the file name and the browser's content type are not trusted. */
export function sniffImageType(b: Buffer): ImageMime | null {
  if (b.length < 12) return null;
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'image/gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*') return 'image/tiff';
  if (ascii(b, 4, 8) === 'ftyp') {
    // ISO-BMFF: the major brand, then compatible brands up to the end of the ftyp box.
    const boxEnd = Math.min(b.readUInt32BE(0), b.length, 64);
    const brands = [ascii(b, 8, 12)];
    for (let i = 16; i + 4 <= boxEnd; i += 4) brands.push(ascii(b, i, i + 4));
    if (brands.some((x) => x === 'avif' || x === 'avis')) return 'image/avif';
    if (brands.some((x) => ['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1'].includes(x)))
      return 'image/heic';
  }
  return null;
}

/**
 * Whether the file stops before its format's end marker: a JPEG without its end-of-image marker, a
 * PNG without IEND, a GIF without its trailer, a WebP shorter than its RIFF header says. Read from
 * the bytes because libvips' wording for the same cut file varies between runs (and is sometimes
 * lost when other images decode at once), and a cut upload is the commonest damaged file.
 */
export function endsEarly(b: Buffer, mime: ImageMime): boolean {
  let end = b.length;
  // Some writers pad a finished file with zeros; the marker is before the padding.
  if (mime === 'image/jpeg' || mime === 'image/gif') while (end > 0 && b[end - 1] === 0) end--;
  switch (mime) {
    case 'image/jpeg':
      return !(end >= 2 && b[end - 2] === 0xff && b[end - 1] === 0xd9);
    case 'image/png':
      return !(end >= 12 && ascii(b, end - 8, end - 4) === 'IEND');
    case 'image/gif':
      return !(end >= 1 && b[end - 1] === 0x3b);
    case 'image/webp':
      return b.length < 8 || b.readUInt32LE(4) + 8 > b.length;
    default:
      return false;
  }
}
