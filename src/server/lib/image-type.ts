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

/** Scans a JPEG may have: encoders write about 10 for a progressive file, 1 for a baseline one. */
export const MAX_JPEG_SCANS = 100;
/** Memory a JPEG read in several scans, or progressive, may take for its coefficients (all are held). */
const MAX_JPEG_COEFFICIENT_BYTES = 320 * 1024 * 1024;

/**
 * APPn segments a JPEG may have: a photo has a few (JFIF, EXIF, XMP, ICC, IPTC, MPF), an ICC profile
 * at most 255 (its chunk numbers are one byte), extended XMP one per 64 KB. libjpeg keeps every
 * APP1, APP2, APP13 and APP14 it meets for libvips, in its own memory: a 49 MB file of 12 million
 * empty APP2 segments took 3.5 GB and 10 s, and was stored as the 64 x 64 image after them.
 */
export const MAX_JPEG_APP_SEGMENTS = 1000;

const TOO_MANY_SEGMENTS = `This JPEG holds more than ${MAX_JPEG_APP_SEGMENTS} metadata segments, which would take too long to read. Save it again as a standard JPEG and upload it once more.`;
const TOO_MANY_SCANS = `This JPEG is stored in more than ${MAX_JPEG_SCANS} passes, which would take too long to read. Save it again as a standard JPEG and upload it once more.`;
const TOO_MUCH_MEMORY =
  'This progressive JPEG is too large to read. Save it again as a standard JPEG, or at a smaller size, and upload it once more.';

/** SOFn markers (C4 is DHT, C8 reserved, CC DAC); C2, C6, CA and CE are progressive. */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
const isProgressive = (m: number) => m === 0xc2 || m === 0xc6 || m === 0xca || m === 0xce;
/** Markers libjpeg reads as a segment with a length: SOFn, DHT, DAC, SOS, DQT, DNL, DRI, DHP, EXP, APPn, COM. */
const hasLength = (m: number) =>
  (m >= 0xc0 && m <= 0xcf && m !== 0xc8) || (m >= 0xda && m <= 0xdf) || (m >= 0xe0 && m <= 0xef) || m === 0xfe;

/** How many times the bytes of an SOS marker (FF DA) occur anywhere: at least the scans any decoder can find. */
function sosBytes(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(0xff); i >= 0 && i + 1 < b.length; i = b.indexOf(0xff, i + 1)) if (b[i + 1] === 0xda) n++;
  return n;
}

/**
 * Why decoding this JPEG would cost far more than its size says, or null (also for too many APPn
 * segments, `MAX_JPEG_APP_SEGMENTS`). Every scan is a pass
 * over all of the image's blocks, and a scan can be ~100 bytes: a 340 KB file of 1,000 scans took
 * 15 s of a decoder thread, and the threads decoding uploads are the ones sign-ins hash passwords
 * on. A progressive (or multi-scan) file also holds every coefficient before a pixel comes out
 * (128 bytes per 8x8 block and component): 10,000 x 10,000 pixels in 3 components took 580-680
 * MB, with 20 scans or one. Read from the bytes alone (memchr), before any decoder sees the file.
 *
 * The scans are bounded by every FF DA in the file, wherever it is: a walk of the markers can be
 * led past scans libjpeg still reads (it discards FF 00 and junk between segments and looks on),
 * and an SOS is always those two bytes. Metadata holding them by chance (1 in 65,536 byte pairs)
 * can only count a few too many. The frame's size and kind come from a walk that reads markers as
 * libjpeg's `next_marker` does.
 */
export function jpegDecodeRefusal(b: Buffer): string | null {
  if (sosBytes(b) > MAX_JPEG_SCANS) return TOO_MANY_SCANS;
  let scans = 0;
  let apps = 0;
  let progressive = false;
  let coefficientBytes = 0;
  let i = 2;
  for (;;) {
    // The next marker: skip to an FF, past fill FFs; FF 00 is discarded as data and the search goes on.
    i = b.indexOf(0xff, i);
    if (i < 0) break;
    while (i + 1 < b.length && b[i + 1] === 0xff) i++;
    if (i + 1 >= b.length) break;
    const m = b[i + 1]!;
    if (m === 0x00) {
      i += 2;
      continue;
    }
    if (m === 0xd9) break;
    if (!hasLength(m)) {
      i += 2;
      continue;
    }
    if (i + 4 > b.length) break;
    if (m >= 0xe0 && m <= 0xef && ++apps > MAX_JPEG_APP_SEGMENTS) return TOO_MANY_SEGMENTS;
    const end = i + 2 + b.readUInt16BE(i + 2);
    if (isStartOfFrame(m) && i + 10 <= b.length) {
      progressive ||= isProgressive(m);
      const height = b.readUInt16BE(i + 5);
      const width = b.readUInt16BE(i + 7);
      const count = b[i + 9]!;
      const factors: Array<[number, number]> = [];
      for (let c = 0; c < count && i + 12 + 3 * c <= b.length; c++) {
        const hv = b[i + 11 + 3 * c]!;
        factors.push([Math.max(1, hv >> 4), Math.max(1, hv & 15)]);
      }
      const hMax = Math.max(1, ...factors.map(([h]) => h));
      const vMax = Math.max(1, ...factors.map(([, v]) => v));
      const frame = factors.reduce(
        (sum, [h, v]) => sum + Math.ceil((width * h) / hMax / 8) * Math.ceil((height * v) / vMax / 8) * 128,
        0,
      );
      coefficientBytes = Math.max(coefficientBytes, frame);
    }
    i = end;
    if (m !== 0xda) continue;
    scans += 1;
    // The scan's entropy-coded data: stuffed FF 00, restart markers and (as libjpeg's resync
    // discards them) markers below SOF0 are inside it; it ends at the first other marker.
    for (;;) {
      i = b.indexOf(0xff, i);
      if (i < 0 || i + 1 >= b.length) break;
      const next = b[i + 1]!;
      if (next === 0xff) i += 1;
      else if (next < 0xc0 || (next >= 0xd0 && next <= 0xd7)) i += 2;
      else break;
    }
    if (i < 0) break;
  }
  if ((progressive || scans > 1) && coefficientBytes > MAX_JPEG_COEFFICIENT_BYTES) return TOO_MUCH_MEMORY;
  return null;
}

/**
 * Whether an ISO-BMFF (HEIF/AVIF) file's `meta` box holds an AV1 codec configuration (`av1C`): libheif
 * decodes an image by its item's codec, whatever the brands say, and libvips names the compression
 * by the brand, so an AV1 image under a HEIC brand is reported as HEVC. Searched inside the top-level
 * `meta` box only, so coded data that happens to hold those four bytes does not count.
 */
export function heifHasAv1(b: Buffer): boolean {
  let at = 0;
  while (at + 8 <= b.length) {
    let size = b.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > b.length) return false;
      size = Number(b.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = b.length - at;
    if (size < header) return false;
    if (ascii(b, at + 4, at + 8) === 'meta') {
      return b.subarray(at + header, Math.min(b.length, at + size)).includes('av1C', 0, 'latin1');
    }
    at += size;
  }
  return false;
}
